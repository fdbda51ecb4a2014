import { and, eq, sql } from 'drizzle-orm';
import { pendingTurns, sessions } from '../../../db/schema/index.ts';
import { ConflictError } from '../../../domain/errors.ts';
import { EVENT_KINDS } from '../../../domain/runs/events.ts';
import { isSettled } from '../../../domain/runs/states.ts';
import { recordAudit } from '../../kernel/audit/index.ts';
import { appendProductEvents } from '../../kernel/events/index.ts';
import type { RunStarterDeps } from '../../kernel/run-starter.ts';
import { cancelRun } from '../runs/index.ts';
import { withdrawnEvent } from '../runs/index.ts';
import { lockSessionAndLatestRun } from '../runs/index.ts';
import type { SessionRow } from '../runs/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { toSessionListItem, type PublicSessionListItem } from './public.ts';

/**
 * The end of a session: archive (`POST /sessions/{id}/archive`: read-only from then on, still
 * readable) or delete (`DELETE /sessions/{id}`: gone from every read; the rows stay until
 * retention removes them). Either way, in one transaction: its unsettled run is asked to cancel
 * (the runtime drains and settles it), its pending turns are withdrawn, and `session.archived` /
 * `session.deleted` is appended with an audit entry. Only a root session ends this way: a
 * delegated one belongs to its coordinator.
 */
type EndArgs = { ctx: ServiceContext; deps: RunStarterDeps; input: { sessionId: string } };

export async function archiveSession({ ctx, deps, input }: EndArgs): Promise<PublicSessionListItem> {
  return withTransaction(ctx, async (tx) => {
    const session = await endSession(tx, deps, input.sessionId, 'archived');
    return toSessionListItem(session);
  });
}

export async function deleteSession({ ctx, deps, input }: EndArgs): Promise<{ id: string; deleted: true }> {
  return withTransaction(ctx, async (tx) => {
    const session = await endSession(tx, deps, input.sessionId, 'deleted');
    return { id: session.id, deleted: true as const };
  });
}

async function endSession(tx: ServiceContext, deps: RunStarterDeps, sessionId: string, how: 'archived' | 'deleted'): Promise<SessionRow> {
  const { session, latest } = await lockSessionAndLatestRun(tx, sessionId, { lockRunFirst: true });
  if (session.parentSessionId)
    throw new ConflictError("A delegated session belongs to its coordinator: archive or delete the coordinator's session", {
      parentSessionId: session.parentSessionId,
    });
  if (how === 'archived' && session.archivedAt) return session;
  const now = tx.clock.now();
  const withdrawn = await tx.db
    .update(pendingTurns)
    .set({ state: 'withdrawn', withdrawnReason: how === 'archived' ? 'session_archived' : 'session_deleted', settledAt: now })
    .where(and(eq(pendingTurns.sessionId, session.id), eq(pendingTurns.state, 'pending')))
    .returning();
  if (latest && !isSettled(latest.state)) await cancelRun({ ctx: tx, deps, input: { runId: latest.id } });
  const [ended] = await tx.db
    .update(sessions)
    .set(how === 'archived' ? { archivedAt: now } : { deletedAt: now })
    .where(eq(sessions.id, session.id))
    .returning();
  if (how === 'deleted') {
    // Its delegated sessions (at any depth) go with it.
    await tx.db.execute(sql`
      with recursive tree(id) as (
        select id from sessions where parent_session_id = ${session.id}
        union select s.id from sessions s join tree on s.parent_session_id = tree.id
      )
      update sessions set deleted_at = ${now.toISOString()}::timestamptz where id in (select id from tree) and deleted_at is null
    `);
  }
  await recordAudit(tx, {
    action: `session.${how}`,
    targetType: 'session',
    targetId: session.id,
    details: { latestRunId: session.latestRunId, withdrawnTurns: withdrawn.length },
  });
  await appendProductEvents(tx, {
    organizationId: session.organizationId,
    projectId: session.projectId,
    events: [
      ...withdrawn.map((turn) => withdrawnEvent(turn, how === 'archived' ? 'session_archived' : 'session_deleted')),
      {
        aggregateType: 'session',
        aggregateId: session.id,
        kind: how === 'archived' ? EVENT_KINDS.sessionArchived : EVENT_KINDS.sessionDeleted,
        publicPayload: { sessionId: session.id },
      },
    ],
  });
  return ended!;
}
