import { sql, type SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import * as v from 'valibot';
import { rowsOf } from '../../../db/client.ts';
import { ValidationError } from '../../../domain/errors.ts';
import { countCommittedEvents } from '../metrics/index.ts';
import { holdAppendForLast, takePendingWrites, type TakenWrites } from '../pending-writes.ts';
import type { ServiceContext } from '../service-context.ts';
import { withTransaction } from '../transaction.ts';
import { toPublicEvent, type ProductEventRow, type PublicProductEvent } from './public-event.ts';
import { isUuid } from '../../../domain/uuid.ts';

const dialect = new PgDialect();

/** Channel of the commit-time wake-up hint; the payload is the project id. */
export const PRODUCT_EVENTS_CHANNEL = 'svc_product_events';

const Uuid = v.pipe(v.string(), v.uuid());
/** Dotted lowercase names (`run.created`): they travel as SSE `event:` lines, so no line breaks. */
const Name = v.pipe(v.string(), v.maxLength(200), v.regex(/^[a-z][a-z0-9_]*(\.[a-z0-9_]+)*$/, 'must be a dotted lowercase name'));

export const ProductEventDraft = v.object({
  /**
   * The event's id when it must be known before it commits (a main-thread model turn's
   * `message.created`: `turnMessageEventId`); a fresh random UUID otherwise. An id already stored
   * fails the append (the primary key): callers give one only where the event is written once.
   */
  id: v.optional(Uuid),
  aggregateType: Name,
  aggregateId: Uuid,
  kind: Name,
  publicPayload: v.record(v.string(), v.unknown()),
  /** The `message` object of `message.created`; stored, shown only to opted-in consumers. */
  message: v.optional(v.nullable(v.record(v.string(), v.unknown()))),
});
export type ProductEventDraft = v.InferInput<typeof ProductEventDraft>;

const AppendInput = v.object({
  organizationId: Uuid,
  projectId: Uuid,
  events: v.pipe(v.array(ProductEventDraft), v.minLength(1), v.maxLength(1000)),
});
export type AppendProductEventsInput = v.InferInput<typeof AppendInput>;
export type AppendProductEventInput = { organizationId: string; projectId: string } & ProductEventDraft;

/**
 * Appends one product event in the caller's transaction (or a new one) and returns its public
 * shape without message content. See `appendProductEvents` for the ordering guarantees.
 */
export async function appendProductEvent(ctx: ServiceContext, input: AppendProductEventInput): Promise<PublicProductEvent> {
  const { organizationId, projectId, ...event } = input;
  const [appended] = await appendProductEvents(ctx, { organizationId, projectId, events: [event] });
  return appended!;
}

/**
 * Appends events of one project in the caller's transaction (or a new one), in the given order,
 * with one SQL statement, and returns their public shapes (without message content).
 *
 * Positions are gap-free and commit-ordered per project: the statement takes the row lock of the
 * project's counter, and holds it until the transaction ends, so every other writer of the
 * project waits here until this one commits. Append events last in a transaction, after the
 * state change they describe, to keep that lock short.
 */
export async function appendProductEvents(ctx: ServiceContext, input: AppendProductEventsInput): Promise<PublicProductEvent[]> {
  return (await appendProductEventsReading(ctx, input, null)).events;
}

/**
 * `appendProductEvents` that also answers `probe`, a scalar SQL expression evaluated by the same
 * statement, in its snapshot: a read that must see what was committed before this statement
 * began (after the transaction's earlier locks were granted) costs no round trip of its own.
 */
export async function appendProductEventsReading<T>(
  ctx: ServiceContext,
  input: AppendProductEventsInput,
  probe: SQL | null,
): Promise<{ events: PublicProductEvent[]; probe: T | null }> {
  const { organizationId, projectId, stored, json } = parseAppend(input);
  const occurredAt = ctx.clock.now();

  return withTransaction(ctx, async (tx) => {
    const [only] = stored;
    // The transaction's held inserts (its audit entry, its new message) ride along as CTEs.
    const held = takePendingWrites(tx) ?? { ctes: sql``, crossJoin: sql`` };
    // One event (the common case) gets a plain statement: it plans and runs noticeably faster
    // under contention than the batch form, and the counter lock is held for less time.
    const statement =
      stored.length === 1
        ? { name: 'append_product_event', sql: appendOneStatement(organizationId, projectId, only!, occurredAt, held, probe ?? sql`null`) }
        : { name: 'append_product_events', sql: appendManyStatement(organizationId, projectId, json, stored.length, occurredAt, held, probe ?? sql`null`) };
    // A named prepared statement: drizzle's `execute` sends raw SQL unprepared, which postgres.js
    // answers with an extra describe round trip and a fresh plan every time (about 3× slower).
    const query = dialect.sqlToQuery(statement.sql);
    const result = await tx.db._.session.prepareQuery(query, undefined, statement.name, false).execute();
    const rows = rowsOf<AppendedRow>(result);
    if (rows.length !== stored.length) throw new Error(`appended ${rows.length} of ${stored.length} product events`);
    tx.afterCommit.push(() => countCommittedEvents(stored));
    const events = rows.map((row, index) => {
      const event = stored[index]!;
      const storedRow: ProductEventRow = {
        id: row.id,
        organizationId,
        projectId,
        projectPosition: BigInt(row.project_position),
        aggregateType: event.aggregateType,
        aggregateId: row.aggregate_id,
        aggregateSequence: Number(row.aggregate_sequence),
        kind: event.kind,
        publicPayload: event.publicPayload,
        message: event.message,
        sessionId: event.sessionId,
        occurredAt,
      };
      return toPublicEvent(storedRow, { includeMessage: false });
    });
    return { events, probe: (rows[0]?.probe ?? null) as T | null };
  });
}

/**
 * `appendProductEvents` held for the transaction's last statement (`flushPendingWrites`), which
 * also carries the writes held before it and the idempotency record's claim: for a verb whose
 * events are the last thing it writes, and whose caller needs neither their positions nor any
 * read after them in the transaction (nothing may append after it; a check it needs is held with
 * `holdCheck`). Positions and ordering are those of `appendProductEvents`.
 */
export function holdProductEvents(ctx: ServiceContext, input: AppendProductEventsInput): void {
  const { organizationId, projectId, stored, json } = parseAppend(input);
  const ctes = eventCtes('held_events_', organizationId, projectId, json, stored.length, ctx.clock.now());
  holdAppendForLast(ctx, { ctes, read: sql.raw('held_events_notified') });
  ctx.afterCommit.push(() => countCommittedEvents(stored));
}

function parseAppend(input: AppendProductEventsInput) {
  const parsed = v.safeParse(AppendInput, input);
  if (!parsed.success) {
    const issue = parsed.issues[0];
    const path = issue.path?.map((item) => String(item.key)).join('.') ?? 'events';
    throw new ValidationError(`Invalid product event: ${path}: ${issue.message}`, { path });
  }
  const { organizationId, projectId, events } = parsed.output;
  // The JSON round trip gives back exactly what readers will see (jsonb drops `undefined`, turns
  // dates into strings); the batch statement reads the string as one jsonb parameter.
  const json = JSON.stringify(events.map((event) => ({ ...event, id: event.id ?? null, message: event.message ?? null, sessionId: sessionOf(event) })));
  return { organizationId, projectId, json, stored: JSON.parse(json) as StoredDraft[] };
}

type AppendedRow = { id: string; project_position: string; aggregate_id: string; aggregate_sequence: number; probe: unknown };

/** A draft as stored: message content made explicit, and the session it belongs to. */
type StoredDraft = Required<Omit<ProductEventDraft, 'id'>> & { id: string | null; sessionId: string | null };

/**
 * The session an event belongs to: its payload's `sessionId` (every session-scoped event names
 * its session so; delegation events name the coordinator's), else none (agents, Skills, ...).
 * Stored beside the event and indexed, so a session's stream reads only its own events.
 */
function sessionOf(event: ProductEventDraft): string | null {
  const sessionId = event.publicPayload.sessionId;
  return typeof sessionId === 'string' && isUuid(sessionId) ? sessionId : null;
}

/*
 * Why positions are gap-free and commit-ordered under READ COMMITTED:
 * - `insert ... on conflict do update` on the project's counter row takes that row's lock. A
 *   concurrent writer blocks on it; when the holder commits, the waiter re-checks against the
 *   newest committed row version (READ COMMITTED's EvalPlanQual-style recheck) and applies its
 *   `last_position + n` to that version: no lost update, no duplicate. If the holder rolls back,
 *   its increment vanishes with its events, so there is no gap either.
 * - The lock is held to the end of the transaction, so position N+1 can only be allocated after
 *   the transaction holding N has committed: positions become visible in increasing order, and a
 *   reader that has seen N can never later see a committed position below N appear.
 * - The aggregate counter upsert reads from `position`, so every statement locks the project
 *   counter before any aggregate counter; aggregate counters belong to one project, so two
 *   appenders never wait on each other in opposite orders.
 * - Data-modifying CTEs run even when unreferenced, but `pg_notify` in a plain CTE runs only if
 *   the outer query reads it, hence the cross join. NOTIFY is transactional: the hint is sent
 *   at commit (once per transaction and project), never for a rollback.
 */
function appendOneStatement(organizationId: string, projectId: string, event: StoredDraft, occurredAt: Date, held: TakenWrites, probe: SQL) {
  // The append itself is `svc_append_product_event` (append-product-event.sql, migration 0028),
  // which the run steps' functions call too: one definition of an event's position and sequence.
  return sql`
    with ${held.ctes}appended as (
      select * from svc_append_product_event(${organizationId}::uuid, ${projectId}::uuid, ${event.aggregateType}::text, ${event.aggregateId}::uuid,
        ${event.kind}::text, ${JSON.stringify(event.publicPayload)}::jsonb, ${event.message === null ? null : JSON.stringify(event.message)}::jsonb,
        ${event.sessionId}::uuid, ${occurredAt.toISOString()}::timestamptz, ${event.id}::uuid)
    )
    select id, project_position::text as project_position, aggregate_id::text as aggregate_id, aggregate_sequence, ${probe} as probe from appended${held.crossJoin}
  `;
}

/** The same for a batch, read from one jsonb array parameter (no array parameters needed). */
function appendManyStatement(organizationId: string, projectId: string, json: string, count: number, occurredAt: Date, held: TakenWrites, probe: SQL) {
  return sql`
    with ${held.ctes}${eventCtes('', organizationId, projectId, json, count, occurredAt)}
    select i.id, i.project_position::text as project_position, i.aggregate_id::text as aggregate_id, i.aggregate_sequence, ${probe} as probe
    from inserted i cross join notified${held.crossJoin}
    order by i.project_position
  `;
}

/**
 * The batch append's CTEs, each name prefixed: `inserted` returns the rows; `notified`, a plain
 * CTE, sends the wake-up hint only if the outer query reads it.
 */
function eventCtes(prefix: string, organizationId: string, projectId: string, json: string, count: number, occurredAt: Date) {
  const name = (cte: string) => sql.raw(`${prefix}${cte}`);
  return sql`${name('input')} as (
      select e.ord,
             (e.value ->> 'id')::uuid as id,
             e.value ->> 'aggregateType' as aggregate_type,
             (e.value ->> 'aggregateId')::uuid as aggregate_id,
             e.value ->> 'kind' as kind,
             e.value -> 'publicPayload' as public_payload,
             nullif(e.value -> 'message', 'null'::jsonb) as message,
             (e.value ->> 'sessionId')::uuid as session_id
      from jsonb_array_elements(${json}::jsonb) with ordinality as e(value, ord)
    ),
    ${name('position')} as (
      insert into project_event_counters as c (project_id, organization_id, last_position)
      values (${projectId}::uuid, ${organizationId}::uuid, ${count}::bigint)
      on conflict (project_id) do update set last_position = c.last_position + excluded.last_position
      returning c.last_position
    ),
    ${name('aggregates')} as (
      insert into aggregate_event_counters as a (project_id, aggregate_type, aggregate_id, last_sequence)
      select ${projectId}::uuid, i.aggregate_type, i.aggregate_id, count(*)::int
      from ${name('input')} i cross join ${name('position')}
      group by i.aggregate_type, i.aggregate_id
      on conflict (project_id, aggregate_type, aggregate_id)
        do update set last_sequence = a.last_sequence + excluded.last_sequence
      returning a.aggregate_type, a.aggregate_id, a.last_sequence
    ),
    ${name('numbered')} as (
      select i.*,
             p.last_position - ${count}::bigint + i.ord as project_position,
             a.last_sequence
               - count(*) over (partition by i.aggregate_type, i.aggregate_id)
               + row_number() over (partition by i.aggregate_type, i.aggregate_id order by i.ord) as aggregate_sequence
      from ${name('input')} i
      cross join ${name('position')} p
      join ${name('aggregates')} a on a.aggregate_type = i.aggregate_type and a.aggregate_id = i.aggregate_id
    ),
    ${name('inserted')} as (
      insert into product_events (id, organization_id, project_id, project_position, aggregate_type, aggregate_id,
                                  aggregate_sequence, kind, public_payload, message, session_id, occurred_at)
      select coalesce(n.id, gen_random_uuid()), ${organizationId}::uuid, ${projectId}::uuid, n.project_position, n.aggregate_type, n.aggregate_id,
             n.aggregate_sequence, n.kind, n.public_payload, n.message, n.session_id, ${occurredAt.toISOString()}::timestamptz
      from ${name('numbered')} n
      returning id, project_position, aggregate_id, aggregate_sequence
    ),
    ${name('notified')} as (select pg_notify(${PRODUCT_EVENTS_CHANNEL}, ${projectId}::text))`;
}
