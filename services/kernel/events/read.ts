import { and, asc, desc, eq, gt, gte, inArray, lt, lte, sql } from 'drizzle-orm';
import { prepared } from '../../../db/prepared.ts';
import type { Executor } from '../../../db/client.ts';
import { productEvents, projectEventCounters } from '../../../db/schema/product-events.ts';
import { projects } from '../../../db/schema/projects.ts';
import type { ProductEventRow } from './public-event.ts';

/**
 * Reads up to `limit` committed events of a project after `afterPosition` (exclusive), in
 * position order. Positions are gap-free, so a page is complete up to its last position.
 */
export async function readProductEvents({
  db,
  input,
}: {
  db: Executor;
  input: { projectId: string; afterPosition: bigint; limit: number };
}): Promise<ProductEventRow[]> {
  // Prepared once: the tail runs this on every wake-up.
  const statement = prepared(db, 'read_product_events', (db) =>
    db
      .select()
      .from(productEvents)
      .where(and(eq(productEvents.projectId, sql.placeholder('projectId')), gt(productEvents.projectPosition, sql.placeholder('afterPosition'))))
      .orderBy(asc(productEvents.projectPosition))
      .limit(sql.placeholder('limit'))
      .prepare('read_product_events'),
  );
  return statement.execute({ projectId: input.projectId, afterPosition: input.afterPosition, limit: input.limit });
}

/**
 * Reads up to `limit` committed events of one session after `afterPosition` (exclusive), in
 * position order, through the session index: never the rest of the project's log. The caller has
 * checked that the session belongs to the project.
 */
export async function readSessionEvents({
  db,
  input,
}: {
  db: Executor;
  input: { projectId: string; sessionId: string; afterPosition: bigint; limit: number };
}): Promise<ProductEventRow[]> {
  const statement = prepared(db, 'read_session_events', (db) =>
    db
      .select()
      .from(productEvents)
      .where(
        and(
          eq(productEvents.projectId, sql.placeholder('projectId')),
          eq(productEvents.sessionId, sql.placeholder('sessionId')),
          gt(productEvents.projectPosition, sql.placeholder('afterPosition')),
        ),
      )
      .orderBy(asc(productEvents.projectPosition))
      .limit(sql.placeholder('limit'))
      .prepare('read_session_events'),
  );
  return statement.execute({ projectId: input.projectId, sessionId: input.sessionId, afterPosition: input.afterPosition, limit: input.limit });
}

/**
 * A page of one session's product events in either order, after (`asc`) or before (`desc`) the
 * position `from` (null: from the start or the end), optionally bounded by occurrence time.
 * `readSessionEvents` is the prepared, ascending form the live paths use.
 */
export async function readSessionEventsPage({
  db,
  input,
}: {
  db: Executor;
  input: {
    projectId: string;
    sessionId: string;
    from: bigint | null;
    order: 'asc' | 'desc';
    limit: number;
    occurred?: { gt?: Date; gte?: Date; lt?: Date; lte?: Date };
  };
}): Promise<ProductEventRow[]> {
  const occurred = input.occurred ?? {};
  return db
    .select()
    .from(productEvents)
    .where(
      and(
        eq(productEvents.projectId, input.projectId),
        eq(productEvents.sessionId, input.sessionId),
        input.from === null ? undefined : input.order === 'asc' ? gt(productEvents.projectPosition, input.from) : lt(productEvents.projectPosition, input.from),
        occurred.gt ? gt(productEvents.occurredAt, occurred.gt) : undefined,
        occurred.gte ? gte(productEvents.occurredAt, occurred.gte) : undefined,
        occurred.lt ? lt(productEvents.occurredAt, occurred.lt) : undefined,
        occurred.lte ? lte(productEvents.occurredAt, occurred.lte) : undefined,
      ),
    )
    .orderBy(input.order === 'asc' ? asc(productEvents.projectPosition) : desc(productEvents.projectPosition))
    .limit(input.limit);
}

/** The highest committed position of a project; 0 before its first event. */
export async function latestProjectPosition({ db, input }: { db: Executor; input: { projectId: string } }): Promise<bigint> {
  const statement = prepared(db, 'latest_project_position', (db) =>
    db
      .select({ lastPosition: projectEventCounters.lastPosition })
      .from(projectEventCounters)
      .where(eq(projectEventCounters.projectId, sql.placeholder('projectId')))
      .prepare('latest_project_position'),
  );
  const [row] = await statement.execute({ projectId: input.projectId });
  return row?.lastPosition ?? 0n;
}

/** The highest committed positions of several projects at once (for the tail's safety poll). */
export async function latestProjectPositions(db: Executor, projectIds: string[]): Promise<Map<string, bigint>> {
  const positions = new Map<string, bigint>();
  if (projectIds.length === 0) return positions;
  const rows = await db
    .select({ projectId: projectEventCounters.projectId, lastPosition: projectEventCounters.lastPosition })
    .from(projectEventCounters)
    .where(inArray(projectEventCounters.projectId, projectIds));
  for (const row of rows) positions.set(row.projectId, row.lastPosition);
  return positions;
}

/**
 * The highest position retention has deleted events through (0: none deleted): a reader resuming
 * after a lower position would miss events, so the feed refuses it (docs/decisions/cursor-expired.md).
 */
export async function eventsPurgedThrough({ db, input }: { db: Executor; input: { projectId: string } }): Promise<bigint> {
  const statement = prepared(db, 'events_purged_through', (db) =>
    db
      .select({ position: projects.eventsPurgedThroughPosition })
      .from(projects)
      .where(eq(projects.id, sql.placeholder('projectId')))
      .prepare('events_purged_through'),
  );
  const [row] = await statement.execute({ projectId: input.projectId });
  return row?.position ?? 0n;
}
