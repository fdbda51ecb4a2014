import { randomUUID } from 'node:crypto';
import { and, asc, eq, sql } from 'drizzle-orm';
import { messages, runs, sessions, threads, toolCalls } from '../../../db/schema/index.ts';
import { operationCallOfTurn } from '../../../domain/runs/harness-operations.ts';
import { ConflictError } from '../../../domain/errors.ts';
import type { ToolCallFailure } from '../../../domain/tool-calls/failures.ts';
import type { StoredSafeResult } from '../../../domain/tool-calls/result-envelope.ts';
import { isToolCallFinal } from '../../../domain/tool-calls/states.ts';
import { appendProductEvents } from '../../kernel/events/index.ts';
import { holdWrite } from '../../kernel/pending-writes.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { appendRunMessage, checkRunMessage } from './append-message.ts';
import { insertThreadMessage, messageCreatedEvent } from './insert-message.ts';
import { threadOfTurn } from './operation-threads.ts';
import { runMovedEvent, transitionRun } from './transition.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import type { ToolCallRow } from '../tool-calls/index.ts';

/** The stable step key of a call's result message (idempotency of `appendRunMessage`). */
export const toolResultStepKey = (toolCallId: string) => `tool:${toolCallId}`;

/**
 * Appends one `tool` message per call of the turn, in provider order, once every call is final
 * (for the runtime; no actor): the validated result value, or the failure `{code, message, path?}` with `isError`
 * with `isError` for anything else. `toolCallId` in the content is the provider's id, which is
 * what the model pairs results with. Idempotent per call (step `tool:<toolCallId>`). A turn with
 * an open call is a conflict: the workflow appends only after `readToolProgress` says `allFinal`.
 */
export async function appendToolResultMessages({ ctx, input }: { ctx: ServiceContext; input: { runId: string; turnId: string } }): Promise<void> {
  await withTransaction(ctx, async (tx) => {
    const rows = await tx.db
      .select()
      .from(toolCalls)
      .where(and(eq(toolCalls.runId, input.runId), eq(toolCalls.turnId, input.turnId)))
      .orderBy(asc(toolCalls.createdAt), asc(toolCalls.id));
    const open = rows.filter((row) => !isToolCallFinal(row.status));
    if (open.length > 0)
      throw new ConflictError('The turn still has open tool calls', { runId: input.runId, turnId: input.turnId, open: open.map((row) => row.id) });
    const threadId = await threadOfTurn(tx.db, input.turnId);
    for (const row of rows) {
      await appendRunMessage(tx, {
        runId: input.runId,
        stepKey: toolResultStepKey(row.id),
        role: 'tool',
        content: toolMessageContent(row),
        ...(threadId ? { threadId } : {}),
      });
    }
  });
}

/**
 * Once every call of the turn is final, for the runtime: the run `running` again and the calls'
 * results in the transcript, in one transaction that locks the run's row first (the runtime's
 * lock order: the run, then its thread). A run settled meanwhile refuses (ConflictError) before
 * anything is appended; the transcript builder skips calls left without a result.
 */
export async function resumeRunWithToolResults({ ctx, input }: { ctx: ServiceContext; input: { runId: string; turnId: string } }): Promise<void> {
  await withTransaction(ctx, async (tx) => {
    // The common case — a main-thread turn's waiting run, every call final — in one write.
    if (operationCallOfTurn(input.turnId) === null && (await resumeInOneWrite(tx, input))) return;
    await transitionRun({ ctx: tx, input: { runId: input.runId, to: 'running' } });
    await appendToolResultMessages({ ctx: tx, input });
  });
}

/** The states a run resumes from once its turn's calls are final (running: it never waited). */
const RESUMABLE = new Set<string>(['waiting_for_tool', 'waiting_for_approval', 'running']);

type ResultCall = Pick<ToolCallRow, 'id' | 'status' | 'providerCallId' | 'toolName' | 'safeResult' | 'failure'>;

/**
 * `resumeRunWithToolResults` for a waiting (or still running) run of a main-thread turn whose
 * calls are all final: one read locks the run, its session and its thread (the runtime's order) with the turn's calls
 * and the result messages already written; then one write — the events' append (`run.running`,
 * a `message.created` per new result message) carrying the run's and the session's updates, the
 * thread's sequence and the messages as held CTEs — writes what `transitionRun` and
 * `appendRunMessage` write one by one. False, having written nothing, for anything else (a
 * settled run, an open call), which the verbs then decide under the locks taken here.
 */
async function resumeInOneWrite(tx: ServiceContext, input: { runId: string; turnId: string }): Promise<boolean> {
  const [row] = await tx.db
    .select({
      run: runs,
      lastSequence: threads.lastMessageSequence,
      threadProjectId: threads.projectId,
      calls: sql<ResultCall[]>`(
        select coalesce(json_agg(json_build_object(
          'id', tc.id, 'status', tc.status, 'providerCallId', tc.provider_call_id, 'toolName', tc.tool_name,
          'safeResult', tc.safe_result, 'failure', tc.failure) order by tc.created_at, tc.id), '[]'::json)
        from ${toolCalls} tc where tc.run_id = ${runs.id} and tc.turn_id = ${input.turnId}::text)`,
      written: sql<string[]>`(
        select coalesce(json_agg(m.step_key), '[]'::json) from ${messages} m
        where m.thread_id = ${runs.threadId} and m.run_id = ${runs.id}
          and m.step_key in (select 'tool:' || tc.id from ${toolCalls} tc where tc.run_id = ${runs.id} and tc.turn_id = ${input.turnId}::text))`,
    })
    .from(runs)
    .innerJoin(sessions, eq(sessions.id, runs.sessionId))
    .innerJoin(threads, eq(threads.id, runs.threadId))
    .where(eq(runs.id, input.runId))
    .for('update', { of: [runs, sessions, threads] });
  if (!row || !RESUMABLE.has(row.run.state) || row.threadProjectId !== row.run.projectId) return false;
  if (row.calls.some((call) => !isToolCallFinal(call.status))) return false;
  const { run } = row;
  const now = tx.clock.now();
  const written = new Set(row.written);
  const results = row.calls
    .filter((call) => !written.has(toolResultStepKey(call.id)))
    .map((call) => ({ stepKey: toolResultStepKey(call.id), content: toolMessageContent(call) }));
  for (const result of results) checkRunMessage({ stepKey: result.stepKey, role: 'tool', content: result.content });

  // A run that executed its calls without waiting (platform tools) is running already.
  const moves = run.state !== 'running';
  if (!moves && results.length === 0) return true; // a retry after the commit: nothing left to write
  if (moves) await holdWrite(tx, tx.db.update(runs).set({ state: 'running', updatedAt: now }).where(eq(runs.id, run.id)));
  // The session mirrors its latest run only; its activity is the results' arrival either way.
  await holdWrite(
    tx,
    tx.db
      .update(sessions)
      .set({
        ...(moves ? { status: sql`case when ${sessions.latestRunId} = ${run.id}::uuid then 'running' else ${sessions.status} end` } : {}),
        lastActivityAt: now,
      })
      .where(eq(sessions.id, run.sessionId)),
  );
  if (results.length > 0)
    await holdWrite(
      tx,
      tx.db
        .update(threads)
        .set({ lastMessageSequence: row.lastSequence + results.length })
        .where(eq(threads.id, run.threadId)),
    );
  const messageEvents = [];
  for (const [index, result] of results.entries()) {
    const message = await insertThreadMessage(tx, {
      organizationId: run.organizationId,
      projectId: run.projectId,
      threadId: run.threadId,
      runId: run.id,
      stepKey: result.stepKey,
      role: 'tool',
      content: result.content,
      at: now,
      reservedSequence: row.lastSequence + index + 1,
      id: randomUUID(),
      held: true,
    });
    messageEvents.push(messageCreatedEvent(message, run.sessionId));
  }
  const { organizationId, projectId, ...resumed } = runMovedEvent(run, { ...run, state: 'running', updatedAt: now }, null);
  const events = [...(moves ? [resumed] : []), ...messageEvents];
  if (events.length > 0) await appendProductEvents(tx, { organizationId, projectId, events });
  return true;
}

function toolMessageContent(row: ResultCall): Record<string, unknown> {
  if (row.status === 'succeeded') {
    const result = row.safeResult as StoredSafeResult;
    return { toolCallId: row.providerCallId, toolName: row.toolName, result: result.value, isError: false };
  }
  const failure = (row.failure as ToolCallFailure | null) ?? { code: 'tool_failed', message: 'The tool call did not complete' };
  const error: Record<string, unknown> = { code: failure.code, message: failure.message };
  if (failure.path !== undefined) error.path = failure.path;
  // The adapters render failures in each vendor's error form, so the failure is stored bare.
  return { toolCallId: row.providerCallId, toolName: row.toolName, result: error, isError: true };
}
