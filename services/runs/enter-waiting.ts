import type { ServiceContext } from '../service-context.ts';
import { withTransaction } from '../transaction.ts';
import { wakeDeferredRuns, type AdmissionGate } from './admission-gate.ts';
import { transitionRun } from './transition.ts';

/**
 * Moves a run to wait for a caller tool or an approval (for the runtime). A waiting run does not
 * count against its project's running-runs limit, so runs waiting for that place are woken once
 * this commits. Idempotent like `transitionRun`.
 */
export async function enterWaitingState({ ctx, gate, input }: { ctx: ServiceContext; gate: AdmissionGate; input: { runId: string; state: 'waiting_for_tool' | 'waiting_for_approval' } }): Promise<void> {
  await withTransaction(ctx, async (tx) => {
    const run = await transitionRun({ ctx: tx, input: { runId: input.runId, to: input.state } });
    tx.afterCommit.push(() => wakeDeferredRuns(ctx, gate, run.projectId));
  });
}
