import { and, desc, eq, inArray } from 'drizzle-orm';
import { productEvents } from '../../../db/schema/index.ts';
import { requireActor } from '../require-actor.ts';
import type { ServiceContext } from '../service-context.ts';
import type { ProductEventRow } from './public-event.ts';

/**
 * Single product events of the actor's project, found by what they are about: read models for
 * callers that answer with an event's id (the Anthropic-compatible API's echoes and tool-use ids).
 */

/** The first event of one of `kinds` about `aggregateId` (a run, tool call or approval). */
export async function findEventAbout({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { aggregateId: string; kinds: readonly string[] };
}): Promise<{ id: string; occurredAt: Date } | undefined> {
  const [row] = await ctx.db
    .select({ id: productEvents.id, occurredAt: productEvents.occurredAt })
    .from(productEvents)
    .where(
      and(
        eq(productEvents.projectId, requireActor(ctx).projectId),
        eq(productEvents.aggregateId, input.aggregateId),
        inArray(productEvents.kind, [...input.kinds]),
      ),
    )
    .orderBy(productEvents.projectPosition)
    .limit(1);
  return row;
}

/** For each tool call, the id of its `tool_call.created` event. */
export async function toolCallCreationEvents({ ctx, input }: { ctx: ServiceContext; input: { toolCallIds: readonly string[] } }): Promise<Map<string, string>> {
  if (input.toolCallIds.length === 0) return new Map();
  const rows = await ctx.db
    .select({ id: productEvents.id, aggregateId: productEvents.aggregateId })
    .from(productEvents)
    .where(
      and(
        eq(productEvents.projectId, requireActor(ctx).projectId),
        eq(productEvents.aggregateType, 'tool_call'),
        eq(productEvents.kind, 'tool_call.created'),
        inArray(productEvents.aggregateId, [...input.toolCallIds]),
      ),
    );
  return new Map(rows.map((row) => [row.aggregateId, row.id]));
}

/** The event with this id and kind in the session, if there is one. */
export async function findSessionEvent({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { sessionId: string; eventId: string; kind: string };
}): Promise<ProductEventRow | undefined> {
  const [row] = await ctx.db
    .select()
    .from(productEvents)
    .where(
      and(
        eq(productEvents.projectId, requireActor(ctx).projectId),
        eq(productEvents.id, input.eventId),
        eq(productEvents.kind, input.kind),
        eq(productEvents.sessionId, input.sessionId),
      ),
    );
  return row;
}

/** The session's latest event of `kind`. */
export async function latestSessionEvent({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { sessionId: string; kind: string };
}): Promise<ProductEventRow | undefined> {
  const [row] = await ctx.db
    .select()
    .from(productEvents)
    .where(and(eq(productEvents.projectId, requireActor(ctx).projectId), eq(productEvents.sessionId, input.sessionId), eq(productEvents.kind, input.kind)))
    .orderBy(desc(productEvents.projectPosition))
    .limit(1);
  return row;
}
