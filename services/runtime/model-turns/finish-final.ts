import type { RunState } from '../../../domain/runs/states.ts';
import type { AdmissionGate } from '../runs/index.ts';
import { settleRun } from '../runs/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { finishModelTurn, type ModelTurnOutcome } from './finish.ts';

/**
 * A main-thread turn's final reply (no tool calls) that ends its run: `finishModelTurn` and the
 * run's `completed` settlement (`settleRun`, with everything it does: open tool calls cancelled,
 * the session's next pending turn handed off, waiting runs woken) in one transaction, so the run
 * workflow needs no settlement step of its own (issue 33). Returns the state the run settled in:
 * a run settled meanwhile (cancelled, timed out) keeps that state, as `settleRun` does.
 */
export async function finishFinalTurn({
  ctx,
  gate,
  input,
}: {
  ctx: ServiceContext;
  gate: AdmissionGate;
  input: { runId: string; turnId: string; attempt: number; outcome: Extract<ModelTurnOutcome, { kind: 'succeeded' }> };
}): Promise<RunState> {
  // The run's lock first (the runtime's order), then the reply, then the settlement, in the
  // transaction settleRun opens (it starts and wakes runs after its commit).
  return settleRun({
    ctx,
    gate,
    input: { runId: input.runId, state: 'completed', failure: null, invocationFailed: false },
    first: (tx, run) => finishModelTurn({ ctx: tx, input, run }),
  });
}
