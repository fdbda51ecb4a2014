import { NotFoundError, ValidationError } from '../../../domain/errors.ts';
import { cancelDelegation, delegationsOfSession } from '../../../services/runtime/delegations/index.ts';
import type { RunStarterDeps } from '../../../services/kernel/run-starter.ts';
import { findSession, type SessionRow } from '../../../services/runtime/runs/index.ts';
import type { ServiceContext } from '../../../services/kernel/service-context.ts';
import { isOurId } from '../domain/ids.ts';
import { threadAgentOf } from '../domain/agents.ts';
import { statusOf } from '../domain/sessions.ts';
import { agentSnapshotOf } from './agents.ts';

/**
 * `client.beta.sessions.threads` (docs/decisions/anthropic-compat-multiagent.md): a session's
 * primary thread is the session itself, and each child session its coordinator delegated to is a
 * child thread; thread ids are our thread ids. Archiving a child thread cancels its delegation
 * (closed to further messages, its unsettled run cancelled): its thread is then `terminated`.
 */

export const THREAD_STATUSES = ['running', 'idle', 'rescheduling', 'terminated'] as const;
type ThreadStatus = (typeof THREAD_STATUSES)[number];

/** A thread's runs' timing (a child thread's; none for the primary). */
type RunTiming = { queuedAt: string; startedAt: string | null; settledAt: string | null };
type Thread = { session: SessionRow; parentThreadId: string | null; closedAt: Date | null; delegationId: string | null; runs: RunTiming[] };

/** The threads of a session, the primary first, then its children in the order they were made. */
async function threadsOf(ctx: ServiceContext, sessionId: string): Promise<Thread[]> {
  if (!isOurId(sessionId)) throw new NotFoundError('No session with that id in this project');
  const session = await findSession({ ctx, input: { sessionId } });
  const children = await delegationsOfSession({ ctx, input: { coordinatorSessionId: session.id } });
  const threads: Thread[] = [{ session, parentThreadId: null, closedAt: null, delegationId: null, runs: [] }];
  for (const child of children) {
    threads.push({
      session: await findSession({ ctx, input: { sessionId: child.childSessionId } }),
      parentThreadId: session.threadId,
      closedAt: child.closedAt ? new Date(child.closedAt) : null,
      delegationId: child.id,
      runs: child.childRuns,
    });
  }
  return threads;
}

const seconds = (from: string | Date, to: string | Date) => Math.max(0, (new Date(to).getTime() - new Date(from).getTime()) / 1000);

/**
 * A thread's `stats`: its age (frozen when it was closed), and for a child thread the time its
 * runs spent between starting and settling, and the wait of its first run for a place.
 */
function statsOf(thread: Thread, now: Date) {
  const end = thread.closedAt ?? thread.session.archivedAt ?? now;
  const duration = { duration_seconds: seconds(thread.session.createdAt, end) };
  if (thread.parentThreadId === null) return duration;
  const started = thread.runs.filter((run) => run.startedAt !== null);
  const active = started.reduce((sum, run) => sum + seconds(run.startedAt!, run.settledAt ?? now), 0);
  const first = thread.runs[0];
  const startup = first ? seconds(first.queuedAt, first.startedAt ?? now) : 0;
  return { ...duration, active_seconds: active, startup_seconds: startup };
}

/** A thread's `usage`: its session's counters; null until a model call of it was counted. */
function usageOf(session: SessionRow) {
  if (session.inputTokens + session.outputTokens === 0) return null;
  return {
    input_tokens: session.inputTokens,
    output_tokens: session.outputTokens,
    cache_read_input_tokens: session.cacheReadTokens,
    cache_creation: { ephemeral_5m_input_tokens: session.cacheWriteTokens, ephemeral_1h_input_tokens: 0 },
  };
}

async function renderThread(ctx: ServiceContext, coordinatorSessionId: string, thread: Thread) {
  const { session } = thread;
  const agent = await agentSnapshotOf(ctx, session.agentVersionId);
  const status: ThreadStatus = thread.closedAt ? 'terminated' : statusOf(session);
  return {
    type: 'session_thread' as const,
    id: session.threadId,
    agent: threadAgentOf(agent),
    archived_at: thread.closedAt?.toISOString() ?? (session.archivedAt ? session.archivedAt.toISOString() : null),
    created_at: session.createdAt.toISOString(),
    parent_thread_id: thread.parentThreadId,
    session_id: coordinatorSessionId,
    stats: statsOf(thread, ctx.clock.now()),
    status,
    updated_at: session.lastActivityAt.toISOString(),
    usage: usageOf(session),
    workflow_run_id: null,
  };
}
export type CmaThread = Awaited<ReturnType<typeof renderThread>>;

/** `GET /v1/sessions/{id}/threads`: a page of them (the cursor: how many came before), filtered by status. */
export async function listCompatThreads({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { sessionId: string; limit: number; page: string | undefined; statuses: string[] };
}): Promise<{ data: CmaThread[]; next_page: string | null }> {
  const unknown = input.statuses.find((status) => !(THREAD_STATUSES as readonly string[]).includes(status));
  if (unknown !== undefined) throw new ValidationError(`statuses: must be among ${THREAD_STATUSES.join(', ')}`, { path: 'query.statuses' });
  const start = input.page === undefined ? 0 : Number(input.page);
  if (!Number.isInteger(start) || start < 0) throw new ValidationError('page: not a page of this list', { path: 'query.page' });
  const all = await Promise.all((await threadsOf(ctx, input.sessionId)).map((thread) => renderThread(ctx, input.sessionId, thread)));
  const wanted = input.statuses.length === 0 ? all : all.filter((thread) => input.statuses.includes(thread.status));
  const data = wanted.slice(start, start + input.limit);
  return { data, next_page: start + input.limit < wanted.length ? String(start + input.limit) : null };
}

/** The session a thread of `sessionId` runs in (the session itself for its primary thread); 404 otherwise. */
export async function sessionOfThread(ctx: ServiceContext, input: { sessionId: string; threadId: string }): Promise<{ thread: Thread; sessionId: string }> {
  const thread = (await threadsOf(ctx, input.sessionId)).find((candidate) => candidate.session.threadId === input.threadId);
  if (!thread) throw new NotFoundError('No thread with that id in this session');
  return { thread, sessionId: thread.session.id };
}

/** `GET /v1/sessions/{id}/threads/{thread_id}`. */
export async function getCompatThread({ ctx, input }: { ctx: ServiceContext; input: { sessionId: string; threadId: string } }): Promise<CmaThread> {
  const { thread } = await sessionOfThread(ctx, input);
  return renderThread(ctx, input.sessionId, thread);
}

/** `POST /v1/sessions/{id}/threads/{thread_id}/archive`: a child thread's delegation cancelled; the primary thread is the session's to archive. */
export async function archiveCompatThread({
  ctx,
  deps,
  input,
}: {
  ctx: ServiceContext;
  deps: RunStarterDeps;
  input: { sessionId: string; threadId: string };
}): Promise<CmaThread> {
  const { thread } = await sessionOfThread(ctx, input);
  if (!thread.delegationId)
    throw new ValidationError('the primary thread is archived with its session (client.beta.sessions.archive)', { path: 'path.thread_id' });
  await cancelDelegation({ ctx, deps, input: { sessionId: input.sessionId, delegationId: thread.delegationId } });
  return getCompatThread({ ctx, input });
}
