import { and, asc, eq, inArray } from 'drizzle-orm';
import { toolCalls } from '../../db/schema/index.ts';
import type { ToolCallStatus } from '../../domain/tool-calls/states.ts';
import type { ServiceContext } from '../service-context.ts';
import { withTransaction } from '../transaction.ts';
import { handOffPlace, type AdmissionGate } from './admission-gate.ts';
import type { RunRow } from './public.ts';
import { transitionRun } from './transition.ts';

/** The calls a waiting run waits on: approvals to decide, or caller tools to answer. */
const BLOCKING: Record<'waiting_for_tool' | 'waiting_for_approval', ToolCallStatus[]> = {
  waiting_for_approval: ['pending_approval'],
  waiting_for_tool: ['pending', 'claimed'],
};

/**
 * Moves a run to wait for a caller tool or an approval (for the runtime). Its `run.<state>`
 * event names what it waits on (`waitingOn.toolCallIds`, oldest first). A waiting run does not
 * count against its project's running-runs limit, so its place goes to the oldest run waiting for
 * one (`handOffPlace`). Idempotent like `transitionRun`.
 */
export async function enterWaitingState({ ctx, gate, input }: { ctx: ServiceContext; gate: AdmissionGate; input: { runId: string; state: 'waiting_for_tool' | 'waiting_for_approval' } }): Promise<void> {
  await withTransaction(ctx, async (tx) => {
    // Set under the run's lock when this call is the one that moves it (a repeat moves nothing).
    let leftRunning = false;
    const waitingOn = async (locked: ServiceContext, run: RunRow) => {
      leftRunning = run.state === 'running';
      const calls = await locked.db
        .select({ id: toolCalls.id })
        .from(toolCalls)
        .where(and(eq(toolCalls.runId, input.runId), inArray(toolCalls.status, BLOCKING[input.state])))
        .orderBy(asc(toolCalls.createdAt), asc(toolCalls.id));
      return { waitingOn: { toolCallIds: calls.map((call) => call.id) } };
    };
    const run = await transitionRun({ ctx: tx, input: { runId: input.runId, to: input.state }, options: { payload: waitingOn } });
    if (leftRunning) await handOffPlace(tx, gate, run.projectId);
  });
}
