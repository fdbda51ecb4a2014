import { canonicalJson } from '../../../domain/canonical-json.ts';
import {
  cmaEventId,
  cmaEventsOf,
  productEventIdOf,
  toolCallIdsOf,
  type CmaEvent,
  type EventFacts,
  type EventSource,
  type ChildThreadFacts,
  type ToolCallFacts,
} from '../domain/events.ts';
import { turnFields, userMessageContent, userMessageTurn } from '../domain/content.ts';
import { attachmentsOf } from '../../../domain/attachments/metadata.ts';
import { NotFoundError, ValidationError } from '../../../domain/errors.ts';
import { describeJsonProblem, unstorableJsonPart } from '../../../domain/json-limits.ts';
import { isSettled } from '../../../domain/runs/states.ts';
import { decideApproval } from '../../../services/runtime/approvals/index.ts';
import { findEventAbout, findSessionEvent, latestSessionEvent, toolCallCreationEvents } from '../../../services/kernel/events/index.ts';
import { readSessionEventsPage } from '../../../services/kernel/events/index.ts';
import { attachmentsOfRuns } from '../../../services/runtime/attachments/index.ts';
import { latestRunOfSession, queuedTurnEventsOfRuns, readQueuedTurn, userMessageEventOfRun } from '../../../services/runtime/runs/index.ts';
import { approvalOfToolCall, lockToolCallForAnswer, readToolCalls } from '../../../services/runtime/tool-calls/index.ts';
import type { RunStarterDeps } from '../../../services/kernel/run-starter.ts';
import { cancelRun } from '../../../services/runtime/runs/index.ts';
import { createFollowUpRun } from '../../../services/runtime/runs/index.ts';
import { findSession } from '../../../services/runtime/runs/index.ts';
import type { ServiceContext } from '../../../services/kernel/service-context.ts';
import { claimToolCall } from '../../../services/runtime/tool-calls/index.ts';
import { submitToolResult } from '../../../services/runtime/tool-calls/index.ts';
import { withTransaction } from '../../../services/kernel/transaction.ts';
import { isOurId } from '../domain/ids.ts';
import { agentSnapshotOf } from './agents.ts';

/**
 * Session events of the Anthropic-compatible API (`/v1/sessions/{id}/events`): the session's
 * product events rendered as CMA events (`compat/anthropic/domain/events.ts`), and events sent by
 * the client applied through our verbs, all of one send in one transaction.
 */

/** What the mapping needs about the calls and pending turns the rows name. */
export async function factsFor(ctx: ServiceContext, rows: EventSource[]): Promise<EventFacts> {
  const callIds = [...new Set(rows.flatMap(toolCallIdsOf))];
  const toolCallsById = new Map<string, ToolCallFacts>();
  const createdOf = await toolCallCreationEvents({ ctx, input: { toolCallIds: callIds } });
  for (const call of await readToolCalls({ ctx, input: { toolCallIds: callIds } })) {
    const createdEventId = createdOf.get(call.id);
    if (!createdEventId) continue;
    const result = call.safeResult as { status?: string; value?: unknown } | null;
    toolCallsById.set(call.id, {
      createdEventId,
      toolName: call.toolName,
      owner: call.owner,
      arguments: call.safeArguments,
      approvalRequired: call.approvalRequired,
      resultBlocks: result?.status === 'success' ? blocksOfValue(result.value) : null,
      resultValue: result?.status === 'success' ? result.value : undefined,
      failureMessage: call.failure?.message ?? null,
    });
  }
  // The child sessions delegation events name: their threads, and the agents they run.
  const childThreads = new Map<string, ChildThreadFacts>();
  const childIds = [...new Set(rows.filter((row) => row.kind.startsWith('delegation.')).map((row) => String(row.publicPayload.childSessionId)))];
  for (const childId of childIds.filter(isOurId)) {
    const child = await findSession({ ctx, input: { sessionId: childId } }).catch((error: unknown) => {
      if (error instanceof NotFoundError) return null;
      throw error;
    });
    if (child) childThreads.set(childId, { threadId: child.threadId, agentName: (await agentSnapshotOf(ctx, child.agentVersionId)).name });
  }
  const userMessageRuns = rows
    .filter((row) => row.kind === 'message.created' && row.publicPayload.role === 'user')
    .map((row) => String(row.publicPayload.runId));
  return {
    toolCalls: toolCallsById,
    queuedMessageEventOfRun: await queuedTurnEventsOfRuns({ ctx, input: { runIds: userMessageRuns } }),
    attachmentsOfRun: await attachmentsOfRuns({ ctx, input: { runIds: userMessageRuns } }),
    childThreads,
  };
}

/** A tool's result value as content blocks: the blocks a CMA client sent, else the value as JSON text. */
function blocksOfValue(value: unknown): Array<Record<string, unknown>> {
  const blocks = (value as { content?: unknown } | null)?.content;
  if (Array.isArray(blocks) && blocks.every((block) => typeof block === 'object' && block !== null && typeof (block as { type?: unknown }).type === 'string'))
    return blocks as Array<Record<string, unknown>>;
  return [{ type: 'text', text: JSON.stringify(value) }];
}

const sourceOf = (row: { id: string; kind: string; publicPayload: unknown; message: unknown; occurredAt: Date }): EventSource => ({
  id: row.id,
  kind: row.kind,
  publicPayload: row.publicPayload as Record<string, unknown>,
  message: (row.message as Record<string, unknown> | null) ?? null,
  occurredAt: row.occurredAt,
});

/** Rows of the session's product events (as the tail hands them out) as CMA events, in order. */
export async function cmaEventsForRows({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { rows: Array<{ id: string; kind: string; publicPayload: unknown; message: unknown; occurredAt: Date }> };
}): Promise<CmaEvent[]> {
  const sources = input.rows.map(sourceOf);
  const facts = await factsFor(ctx, sources);
  return sources.flatMap((source) => cmaEventsOf(source, facts));
}

/** The CMA events of a session's latest `session.archived` (its `session.status_terminated`). */
export async function archivedEventsOf({ ctx, input }: { ctx: ServiceContext; input: { sessionId: string } }): Promise<CmaEvent[]> {
  const archived = await latestSessionEvent({ ctx, input: { sessionId: input.sessionId, kind: 'session.archived' } });
  return archived ? cmaEventsForRows({ ctx, input: { rows: [archived] } }) : [];
}

/**
 * A page of the session's events, oldest first (`order: desc`: newest first), optionally bounded
 * by `created_at` (the events' `processed_at`, their product events' time). The cursor is the
 * project position of the last product event read; a page ends at a product event's boundary (so
 * it may hold a few more than `limit`). `types` filters after mapping.
 */
export async function listCompatEvents({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: {
    sessionId: string;
    limit: number;
    page: string | undefined;
    types: string[];
    order: 'asc' | 'desc';
    created: { gt?: Date; gte?: Date; lt?: Date; lte?: Date };
  };
}): Promise<{ data: CmaEvent[]; next_page: string | null }> {
  const session = await findSession({ ctx, input: { sessionId: input.sessionId } });
  let from = input.page === undefined ? null : positionOf(input.page);
  const batch = Math.min(input.limit, 500);
  const data: CmaEvent[] = [];
  for (;;) {
    const rows = await readSessionEventsPage({
      db: ctx.db,
      input: { projectId: session.projectId, sessionId: session.id, from, order: input.order, limit: batch, occurred: input.created },
    });
    const sources = rows.map(sourceOf);
    const facts = await factsFor(ctx, sources);
    for (const [index, source] of sources.entries()) {
      const mapped = cmaEventsOf(source, facts).filter((event) => input.types.length === 0 || input.types.includes(event.type));
      data.push(...(input.order === 'asc' ? mapped : mapped.reverse()));
      from = rows[index]!.projectPosition;
      if (data.length >= input.limit) {
        const more = index < rows.length - 1 || rows.length === batch;
        return { data, next_page: more ? Buffer.from(from.toString()).toString('base64url') : null };
      }
    }
    if (rows.length < batch) return { data, next_page: null };
  }
}

function positionOf(page: string): bigint {
  const text = Buffer.from(page, 'base64url').toString('utf8');
  if (!/^[0-9]{1,19}$/.test(text)) throw new ValidationError('page is not a cursor this server gave', { path: 'query.page' });
  return BigInt(text);
}

type SendInput = { sessionId: string; events: Array<Record<string, unknown>> };

/**
 * Applies the events of one send, in order, in one transaction (all or none), and echoes each
 * with the id it has (or will have) in the session's events: a message that starts a run is its
 * `message.created`; one queued behind a busy run is its `session.input_queued` (`processed_at`
 * null until it runs); a tool result is the call's final `tool_call.*`; a confirmation is
 * `approval.decided`; an interrupt is `run.cancellation_requested`.
 */
export async function sendCompatEvents({ ctx, deps, input }: { ctx: ServiceContext; deps: RunStarterDeps; input: SendInput }): Promise<{ data: CmaEvent[] }> {
  if (input.events.length === 0) throw new ValidationError('events: send at least one event', { path: 'body.events' });
  // Everything checkable without the database first, so a bad event refuses the whole send.
  input.events.forEach((event, index) => checkEvent(event, index));
  return applySend(ctx, deps, input);
}

async function applySend(ctx: ServiceContext, deps: RunStarterDeps, input: SendInput): Promise<{ data: CmaEvent[] }> {
  return withTransaction(ctx, async (tx) => {
    // No session lock here: an interrupt locks the run first (settlement's order), then the session.
    const session = await findSession({ ctx: tx, input: { sessionId: input.sessionId } });
    const echoes: CmaEvent[] = [];
    for (const [index, event] of input.events.entries()) echoes.push(await applyEvent(tx, deps, session.id, event, index));
    return { data: echoes };
  });
}

const SENDABLE = new Set(['user.message', 'user.interrupt', 'user.custom_tool_result', 'user.tool_confirmation']);

function checkEvent(event: Record<string, unknown>, index: number) {
  const field = `events.${index}`;
  if (!SENDABLE.has(String(event.type))) {
    const why =
      event.type === 'user.tool_result'
        ? 'tools run by the client are custom tools here; send user.custom_tool_result'
        : `${String(event.type)} is not supported by this server`;
    throw new ValidationError(`${field}.type: ${why}`, { path: `body.${field}.type` });
  }
  if (event.session_thread_id !== undefined && event.session_thread_id !== null)
    throw new ValidationError(`${field}.session_thread_id: multi-agent threads are not supported by this server`, { path: `body.${field}.session_thread_id` });
  if (event.type === 'user.message') userMessageTurn(event, field);
}

async function applyEvent(tx: ServiceContext, deps: RunStarterDeps, sessionId: string, event: Record<string, unknown>, index: number): Promise<CmaEvent> {
  const field = `events.${index}`;
  switch (event.type) {
    case 'user.message': {
      const answer = await createFollowUpRun({
        ctx: tx,
        deps,
        input: { sessionId, ...turnFields(userMessageTurn(event, field), 'message'), ifBusy: 'enqueue', idempotencyKey: null },
      });
      if ('queued' in answer) {
        // Rendered from what was stored, as the list will render it once the turn runs.
        const { turn, queuedEventId } = await readQueuedTurn({ ctx: tx, input: { sessionId, pendingTurnId: answer.pendingTurn.id } });
        return {
          id: cmaEventId(queuedEventId),
          type: 'user.message',
          content: userMessageContent(turn.message, attachmentsOf({ attachments: turn.attachments })),
          processed_at: null,
        };
      }
      const created = await userMessageEventOfRun({ ctx: tx, input: { sessionId, runId: answer.id } });
      const source = sourceOf(created);
      const [echo] = cmaEventsOf(source, await factsFor(tx, [source]));
      return echo!;
    }
    case 'user.interrupt': {
      const latest = await latestRunOfSession({ ctx: tx, input: { sessionId } });
      if (!latest || isSettled(latest.state)) throw new ValidationError(`${field}: nothing is running to interrupt`, { path: `body.${field}` });
      await cancelRun({ ctx: tx, deps, input: { runId: latest.id } });
      const requested = await findEventAbout({ ctx: tx, input: { aggregateId: latest.id, kinds: ['run.cancellation_requested'] } });
      return { id: cmaEventId(requested!.id), type: 'user.interrupt', processed_at: requested!.occurredAt.toISOString() };
    }
    case 'user.custom_tool_result':
      return applyToolResult(tx, deps, sessionId, event, field);
    default:
      return applyConfirmation(tx, deps, sessionId, event, field);
  }
}

/** The tool call a CMA tool-use id names (its `tool_call.created` event), in this session. */
async function callOfUseId(tx: ServiceContext, sessionId: string, useId: unknown, field: string) {
  const eventId = typeof useId === 'string' ? productEventIdOf(useId) : null;
  const created = eventId ? await findSessionEvent({ ctx: tx, input: { sessionId, eventId, kind: 'tool_call.created' } }) : undefined;
  if (!created) throw new ValidationError(`${field}: no tool use with that id in this session`, { path: `body.${field}` });
  const call = await lockToolCallForAnswer({ ctx: tx, input: { toolCallId: created.aggregateId } });
  return { call, useEventId: eventId! };
}

/**
 * A custom tool's result: claimed and submitted in one step (the SDK never sees a fence). The
 * same result again is answered as the first (a runner retrying); any other result for a call
 * that has ended is a 400, which the runner does not retry.
 */
async function applyToolResult(tx: ServiceContext, deps: RunStarterDeps, sessionId: string, event: Record<string, unknown>, field: string): Promise<CmaEvent> {
  const { call } = await callOfUseId(tx, sessionId, event.custom_tool_use_id, `${field}.custom_tool_use_id`);
  if (call.owner !== 'caller')
    throw new ValidationError(`${field}.custom_tool_use_id: that tool is run by this server`, { path: `body.${field}.custom_tool_use_id` });
  const content = contentBlocksOf(event.content, field);
  const isError = event.is_error === true;
  const safeResult = isError
    ? { version: 1 as const, status: 'failure' as const, value: { message: textOf(content).slice(0, 2000).toWellFormed() || 'The tool failed' } }
    : { version: 1 as const, status: 'success' as const, value: valueOf(content, field) };
  if (call.status === 'succeeded' || call.status === 'failed') {
    if (canonicalJson(call.safeResult) !== canonicalJson(safeResult))
      throw new ValidationError(`${field}: that tool use already has a result`, { path: `body.${field}` });
  } else if (call.status === 'pending' || call.status === 'claimed') {
    const claim = await claimToolCall({ ctx: tx, deps, input: { toolCallId: call.id } });
    await submitToolResult({ ctx: tx, deps, input: { toolCallId: call.id, fence: claim.fence, safeResult } });
  } else {
    throw new ValidationError(
      `${field}: that tool use is ${call.status === 'pending_approval' ? 'waiting for a tool confirmation' : `over (${call.status})`}`,
      { path: `body.${field}` },
    );
  }
  const ended = await findEventAbout({ ctx: tx, input: { aggregateId: call.id, kinds: ['tool_call.succeeded', 'tool_call.failed'] } });
  return {
    id: cmaEventId(ended!.id),
    type: 'user.custom_tool_result',
    custom_tool_use_id: event.custom_tool_use_id as string,
    content,
    is_error: isError,
    processed_at: ended!.occurredAt.toISOString(),
  };
}

async function applyConfirmation(
  tx: ServiceContext,
  deps: RunStarterDeps,
  sessionId: string,
  event: Record<string, unknown>,
  field: string,
): Promise<CmaEvent> {
  const { call } = await callOfUseId(tx, sessionId, event.tool_use_id, `${field}.tool_use_id`);
  if (event.result !== 'allow' && event.result !== 'deny')
    throw new ValidationError(`${field}.result: must be allow or deny`, { path: `body.${field}.result` });
  const approval = await approvalOfToolCall({ ctx: tx, input: { toolCallId: call.id } });
  if (!approval) throw new ValidationError(`${field}.tool_use_id: that tool use needs no confirmation`, { path: `body.${field}.tool_use_id` });
  const note = typeof event.deny_message === 'string' ? event.deny_message : undefined;
  await decideApproval({
    ctx: tx,
    deps,
    input: { approvalId: approval.id, status: event.result === 'allow' ? 'approved' : 'denied', ...(note ? { note } : {}) },
  });
  const decided = await findEventAbout({ ctx: tx, input: { aggregateId: approval.id, kinds: ['approval.decided'] } });
  return {
    id: cmaEventId(decided!.id),
    type: 'user.tool_confirmation',
    tool_use_id: event.tool_use_id as string,
    result: event.result,
    ...(note ? { deny_message: note } : {}),
    processed_at: decided!.occurredAt.toISOString(),
  };
}

function contentBlocksOf(content: unknown, field: string): Array<Record<string, unknown>> {
  if (content === undefined || content === null) return [];
  if (
    !Array.isArray(content) ||
    !content.every((block) => typeof block === 'object' && block !== null && typeof (block as { type?: unknown }).type === 'string')
  ) {
    throw new ValidationError(`${field}.content: must be an array of content blocks`, { path: `body.${field}.content` });
  }
  return content as Array<Record<string, unknown>>;
}

const textOf = (blocks: Array<Record<string, unknown>>) =>
  blocks.flatMap((block) => (block.type === 'text' && typeof block.text === 'string' ? [block.text] : [])).join('\n');

/**
 * A success's value: the JSON object the text blocks spell, else the blocks themselves. The JSON
 * a text spells is the caller's JSON too: what no column can store in it is a 400, as in a body.
 */
function valueOf(blocks: Array<Record<string, unknown>>, field: string): Record<string, unknown> {
  if (blocks.length > 0 && blocks.every((block) => block.type === 'text')) {
    let parsed: unknown = null;
    try {
      parsed = JSON.parse(textOf(blocks)) as unknown;
    } catch {
      // not JSON: kept as blocks
    }
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
      const problem = unstorableJsonPart(parsed);
      if (problem)
        throw new ValidationError(`${field}.content: the JSON its text spells ${describeJsonProblem(problem)}`, {
          path: `body.${field}.content`,
          ...(problem.kind === 'too_deep' ? { limit: 'json_depth', maxDepth: problem.maxDepth } : {}),
        });
      return parsed as Record<string, unknown>;
    }
  }
  return { content: blocks };
}
