import { randomUUID } from 'node:crypto';
import { asc, eq, sql } from 'drizzle-orm';
import { insertedRow } from '../../../db/inserted-row.ts';
import * as v from 'valibot';
import { agentVersions, approvals, runs, toolCalls } from '../../../db/schema/index.ts';
import type { ToolDefinition } from '../../../domain/agent-config/index.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../../domain/errors.ts';
import { isSettled } from '../../../domain/runs/states.ts';
import { toolFailure, type ToolCallFailure } from '../../../domain/tool-calls/failures.ts';
import { isRetryExhausted, type AttemptRecord } from '../../../domain/tool-calls/retry.ts';
import { APPROVAL_TTL_MS, TOOL_ATTEMPTS_PER_RUN, type ToolCallStatus } from '../../../domain/tool-calls/states.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { appendProductEvents, type ProductEventDraft } from '../../kernel/events/index.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { holdWrite } from '../../kernel/pending-writes.ts';
import { approvalRequestedEvent, toolCallCreatedEvent } from './events.ts';
import type { ToolCallRow } from './public.ts';
import { pinnedToolColumns, pinnedToolsOf } from './run-tools.ts';
import { validateToolValue } from './validate-tool-value.ts';

/** Unknown names come from the model; they are stored and shown bounded. */
const STORED_NAME_MAX = 200;

const RecordInput = v.object({
  runId: v.pipe(v.string(), v.uuid('runId must be a UUID')),
  turnId: v.pipe(v.string(), v.minLength(1), v.maxLength(200)),
  calls: v.pipe(
    v.array(
      v.object({
        providerCallId: v.pipe(v.string(), v.minLength(1), v.maxLength(200)),
        name: v.string(),
        arguments: v.unknown(),
        argumentsText: v.string(),
      }),
    ),
    v.maxLength(256),
  ),
});

export type RecordToolCallsInput = {
  runId: string;
  turnId: string;
  calls: Array<{ providerCallId: string; name: string; arguments: unknown; argumentsText: string }>;
};

/** What the workflow needs per call: its id and where it stands. `arguments` are the validated ones (null when refused). */
export type RecordedToolCall = {
  toolCallId: string;
  providerCallId: string;
  toolName: string;
  owner: 'caller' | 'platform';
  status: ToolCallStatus;
  arguments: unknown;
};

/**
 * Records the tool calls of one model turn, in provider order, against the run's pinned tools
 * (for the runtime; no actor). Idempotent on `(runId, turnId, providerCallId)`: a repeat returns
 * the rows written first, unchanged, and appends no events.
 *
 * Each new call is checked in this order: an unknown tool fails with `tool_failed`; a tool with
 * three consecutive failed attempts in this run since its last success fails with
 * `tool_retry_exhausted`; arguments that are not an object or do not match `inputSchema` fail
 * with `invalid_tool_arguments` and the first failing path. A valid call waits for an approval
 * (`pending_approval` plus a `pending` approval expiring in 24 h) when the tool asks for one,
 * else for a caller (`pending`) or the worker (`running`). `tool_call.created` and
 * `approval.requested` are appended in the same transaction; raw arguments and
 * `argumentsText` are never stored in events (and `argumentsText` not at all).
 */
export async function recordToolCalls(ctx: ServiceContext, input: RecordToolCallsInput): Promise<{ calls: RecordedToolCall[] }> {
  const parsed = v.safeParse(RecordInput, input);
  if (!parsed.success) throw new ValidationError(`Invalid tool calls: ${parsed.issues[0].message}`);
  const { runId, turnId, calls } = parsed.output;
  const ids = calls.map((call) => call.providerCallId);
  if (new Set(ids).size !== ids.length) throw new ValidationError('providerCallId must be unique within a turn');

  return withTransaction(ctx, async (tx) => {
    // The run lock serializes recording per run, so attempt ordinals and retry counts see every
    // earlier call of the run, and two retries of this activity cannot both insert.
    // With it, what the tools are mounted from (the pinned version, immutable; the session's stores).
    const [locked] = await tx.db
      .select({ run: runs, pinned: pinnedToolColumns(sql`${runs.sessionId}`) })
      .from(runs)
      .innerJoin(agentVersions, eq(agentVersions.id, runs.agentVersionId))
      .where(eq(runs.id, runId))
      .for('update', { of: runs });
    if (!locked) throw new NotFoundError('No run with that id');
    const { run } = locked;
    const history = await tx.db.select().from(toolCalls).where(eq(toolCalls.runId, run.id)).orderBy(asc(toolCalls.createdAt), asc(toolCalls.id));
    const existing = new Map(history.filter((row) => row.turnId === turnId).map((row) => [row.providerCallId, row]));
    const fresh = calls.filter((call) => !existing.has(call.providerCallId));
    if (fresh.length > 0 && isSettled(run.state)) throw new ConflictError(`A ${run.state} run records no tool calls`, { runId: run.id, state: run.state });

    const tools = fresh.length > 0 ? await pinnedToolsOf(tx, locked.pinned) : new Map<string, ToolDefinition>();
    // `attempt` is the per-tool ordinal, so it orders each tool's history exactly.
    const attemptsByTool = new Map<string, AttemptRecord[]>();
    for (const row of [...history].sort((a, b) => a.attempt - b.attempt))
      attemptsOf(attemptsByTool, row.toolName).push({ status: row.status, failureCode: row.failure?.code ?? null });

    // The table has no position column: the order of calls in a run (turn by turn, provider order
    // within a turn) is kept in `createdAt`, strictly increasing by at least a millisecond even
    // when the clock stands still or steps back, so every reader orders by (createdAt, id).
    const latest = history.at(-1)?.createdAt.getTime() ?? Number.NEGATIVE_INFINITY;
    const now = new Date(Math.max(tx.clock.now().getTime(), latest + 1));
    const events: ProductEventDraft[] = [];
    for (const [index, call] of fresh.entries()) {
      const toolName = call.name.slice(0, STORED_NAME_MAX);
      const attempts = attemptsOf(attemptsByTool, toolName);
      const decision = decide({ tool: tools.get(call.name), agentVersionId: run.agentVersionId, toolName, attempts, args: call.arguments });
      const createdAt = new Date(now.getTime() + index);
      // Built in full and held for the events' append (nothing here reads it back).
      const row = insertedRow(toolCalls, {
        id: randomUUID(),
        organizationId: run.organizationId,
        projectId: run.projectId,
        runId: run.id,
        sessionId: run.sessionId,
        turnId,
        providerCallId: call.providerCallId,
        toolName,
        owner: decision.owner,
        approvalRequired: decision.approvalRequired,
        status: decision.status,
        attempt: attempts.length + 1,
        safeArguments: decision.safeArguments,
        failure: decision.failure,
        createdAt,
        updatedAt: createdAt,
        completedAt: decision.status === 'failed' ? createdAt : null,
      });
      await holdWrite(tx, tx.db.insert(toolCalls).values(row));
      attempts.push({ status: row.status, failureCode: row.failure?.code ?? null });
      existing.set(call.providerCallId, row);
      events.push(toolCallCreatedEvent(row));
      if (decision.status === 'pending_approval') {
        const approval = insertedRow(approvals, {
          id: randomUUID(),
          organizationId: run.organizationId,
          projectId: run.projectId,
          runId: run.id,
          sessionId: row.sessionId,
          toolCallId: row.id,
          status: 'pending',
          expiresAt: new Date(createdAt.getTime() + APPROVAL_TTL_MS),
          createdAt,
        });
        await holdWrite(tx, tx.db.insert(approvals).values(approval));
        events.push(approvalRequestedEvent(approval));
      }
    }
    if (events.length > 0) await appendProductEvents(tx, { organizationId: run.organizationId, projectId: run.projectId, events });
    return { calls: calls.map((call) => toRecorded(existing.get(call.providerCallId)!)) };
  });
}

type Decision = {
  owner: 'caller' | 'platform';
  approvalRequired: boolean;
  status: ToolCallStatus;
  safeArguments: unknown;
  failure: ToolCallFailure | null;
};

function decide(input: { tool: ToolDefinition | undefined; agentVersionId: string; toolName: string; attempts: AttemptRecord[]; args: unknown }): Decision {
  const { tool } = input;
  // A name the version does not define is answered by the platform itself.
  if (!tool) return refused('platform', false, toolFailure('tool_failed', `no tool named "${input.toolName}" is available in this agent version`));
  const approvalRequired = tool.approval === 'always';
  if (isRetryExhausted(input.attempts)) {
    return refused(
      tool.owner,
      approvalRequired,
      toolFailure('tool_retry_exhausted', `${tool.name} failed ${TOOL_ATTEMPTS_PER_RUN} times in a row in this run; it is not called again`),
    );
  }
  const args = input.args;
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    return refused(tool.owner, approvalRequired, toolFailure('invalid_tool_arguments', 'arguments must be a JSON object', 'arguments'));
  }
  const check = validateToolValue({ agentVersionId: input.agentVersionId, tool, direction: 'input', value: args });
  if (!check.ok) return refused(tool.owner, approvalRequired, toolFailure('invalid_tool_arguments', check.message, check.path));
  const status: ToolCallStatus = approvalRequired ? 'pending_approval' : tool.owner === 'caller' ? 'pending' : 'running';
  return { owner: tool.owner, approvalRequired, status, safeArguments: args, failure: null };
}

const refused = (owner: 'caller' | 'platform', approvalRequired: boolean, failure: ToolCallFailure): Decision => ({
  owner,
  approvalRequired,
  status: 'failed',
  safeArguments: null,
  failure,
});

function attemptsOf(map: Map<string, AttemptRecord[]>, toolName: string): AttemptRecord[] {
  let list = map.get(toolName);
  if (!list) map.set(toolName, (list = []));
  return list;
}

const toRecorded = (row: ToolCallRow): RecordedToolCall => ({
  toolCallId: row.id,
  providerCallId: row.providerCallId,
  toolName: row.toolName,
  owner: row.owner,
  status: row.status,
  arguments: row.safeArguments ?? null,
});
