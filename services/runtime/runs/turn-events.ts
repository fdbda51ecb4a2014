import { and, desc, eq, sql } from 'drizzle-orm';
import { pendingTurns, productEvents, runs } from '../../../db/schema/index.ts';
import { EVENT_KINDS } from '../../../domain/runs/events.ts';
import { NotFoundError } from '../../../domain/errors.ts';
import { rowsOf } from '../../../db/client.ts';
import type { ProductEventRow } from '../../kernel/events/index.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import type { PendingTurnRow } from './pending-turns.ts';
import type { RunRow } from './public.ts';

/**
 * Read models of a session's turns and the events that carry them: which event queued a turn,
 * which event holds a run's user message, the session's latest run. The payloads these read are
 * this plane's own (`enqueue-turn.ts`, `append-message.ts`); callers outside it get ids and rows.
 */

/** For runs that began as pending turns: the id of each one's `session.input_queued` event. */
export async function queuedTurnEventsOfRuns({ ctx, input }: { ctx: ServiceContext; input: { runIds: readonly string[] } }): Promise<Map<string, string>> {
  if (input.runIds.length === 0) return new Map();
  const result = await ctx.db.execute(sql`
    select pt.run_id::text as run_id, pe.id::text as event_id
    from pending_turns pt
    join product_events pe on pe.project_id = pt.project_id and pe.session_id = pt.session_id
      and pe.kind = ${EVENT_KINDS.sessionInputQueued} and pe.public_payload->>'pendingTurnId' = pt.id::text
    where pt.project_id = ${requireActor(ctx).projectId}::uuid and pt.run_id in (${sql.join(
      input.runIds.map((id) => sql`${id}::uuid`),
      sql`, `,
    )})
  `);
  return new Map(rowsOf<{ run_id: string; event_id: string }>(result).map((row) => [row.run_id, row.event_id]));
}

/** A turn queued behind a busy run, as stored, with the id of its `session.input_queued` event. */
export async function readQueuedTurn({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { sessionId: string; pendingTurnId: string };
}): Promise<{ turn: PendingTurnRow; queuedEventId: string }> {
  const projectId = requireActor(ctx).projectId;
  const [turn] = await ctx.db
    .select()
    .from(pendingTurns)
    .where(and(eq(pendingTurns.id, input.pendingTurnId), eq(pendingTurns.projectId, projectId), eq(pendingTurns.sessionId, input.sessionId)));
  const [queued] = await ctx.db
    .select({ id: productEvents.id })
    .from(productEvents)
    .where(
      and(
        eq(productEvents.projectId, projectId),
        eq(productEvents.sessionId, input.sessionId),
        eq(productEvents.kind, EVENT_KINDS.sessionInputQueued),
        sql`${productEvents.publicPayload}->>'pendingTurnId' = ${input.pendingTurnId}`,
      ),
    );
  if (!turn || !queued) throw new NotFoundError('No pending turn with that id in this session');
  return { turn, queuedEventId: queued.id };
}

/** The `message.created` event of the user message that started the run. */
export async function userMessageEventOfRun({ ctx, input }: { ctx: ServiceContext; input: { sessionId: string; runId: string } }): Promise<ProductEventRow> {
  const [created] = await ctx.db
    .select()
    .from(productEvents)
    .where(
      and(
        eq(productEvents.projectId, requireActor(ctx).projectId),
        eq(productEvents.kind, EVENT_KINDS.messageCreated),
        eq(productEvents.sessionId, input.sessionId),
        sql`${productEvents.publicPayload}->>'runId' = ${input.runId}`,
        sql`${productEvents.publicPayload}->>'role' = 'user'`,
      ),
    );
  if (!created) throw new NotFoundError('The run has no user message in this session');
  return created;
}

/** The session's latest run, if it has one. */
export async function latestRunOfSession({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { sessionId: string };
}): Promise<Pick<RunRow, 'id' | 'state'> | undefined> {
  const [latest] = await ctx.db
    .select({ id: runs.id, state: runs.state })
    .from(runs)
    .where(and(eq(runs.projectId, requireActor(ctx).projectId), eq(runs.sessionId, input.sessionId)))
    .orderBy(desc(runs.createdAt))
    .limit(1);
  return latest;
}
