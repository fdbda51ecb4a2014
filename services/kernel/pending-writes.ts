import { sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import type { ServiceContext } from './service-context.ts';

/**
 * Inserts whose rows nothing in the transaction reads back (an audit entry; a thread message
 * whose row its writer built in full), held until the transaction's next product-event append
 * and sent with it as data-modifying CTEs: one statement and one round trip where each was one.
 * What no append takes is sent as one statement before the commit (`flushPendingWrites`).
 * PostgreSQL runs every data-modifying CTE to completion whether or not the statement reads it,
 * all against one snapshot: a held insert must not depend on a row written after it was held,
 * and constraints (foreign keys, uniqueness) are checked when the statement that carries it runs.
 * Outside a transaction a write is sent at once.
 */
export async function holdWrite(ctx: ServiceContext, write: SQLWrapper & PromiseLike<unknown>): Promise<void> {
  if (ctx.pendingWrites) ctx.pendingWrites.push(write);
  else await write;
}

/**
 * A NOTIFY sent at the commit of the transaction (as every NOTIFY is), held like a write so that it
 * rides in the transaction's next event append or its last statement instead of a round trip of
 * its own. A live-output signal that must reach listeners with the commit uses it. Outside a
 * transaction it is sent at once.
 */
export async function holdNotice(ctx: ServiceContext, notice: { channel: string; payload: string }): Promise<void> {
  if (ctx.pendingWrites) ctx.pendingWrites.push(new HeldNotice(notice.channel, notice.payload));
  else await ctx.db.execute(sql`select pg_notify(${notice.channel}, ${notice.payload})`);
}

/**
 * A held notice. Unlike a data-modifying CTE, a plain `select pg_notify(...)` CTE runs only when
 * the statement reads it: the statement cross-joins `held_notices` (one row, an aggregate), which
 * sends the notices in the order they were held.
 */
class HeldNotice implements SQLWrapper, PromiseLike<unknown> {
  readonly channel: string;
  readonly payload: string;
  constructor(channel: string, payload: string) {
    this.channel = channel;
    this.payload = payload;
  }
  getSQL(): SQL {
    return sql`select pg_notify(${this.channel}, ${this.payload})`;
  }
  then<A = unknown, B = never>(): PromiseLike<A | B> {
    throw new Error('a held notice is sent by the statement that takes it');
  }
}

/** What a statement takes of the held writes: its leading CTEs, and what its outer query must cross join (the notices). */
export type TakenWrites = { ctes: SQL; crossJoin: SQL };

/**
 * The held writes as the leading CTEs of a statement (`with held_0 as (...), held_1 as (...), `)
 * and the `cross join held_notices` its outer query adds (empty without notices), emptied; null
 * when none.
 */
export function takePendingWrites(ctx: ServiceContext): TakenWrites | null {
  const held = ctx.pendingWrites?.splice(0);
  if (!held?.length) return null;
  const writes = held.filter((write) => !(write instanceof HeldNotice));
  const notices = held.filter((write): write is HeldNotice => write instanceof HeldNotice);
  const ctes = writes.map((write, index) => sql`${sql.raw(`held_${index}`)} as (${write.getSQL()}), `);
  if (notices.length > 0) {
    const json = JSON.stringify(notices.map((notice) => ({ channel: notice.channel, payload: notice.payload })));
    ctes.push(sql`held_notices as (
      select count(pg_notify(n.channel, n.payload)) as sent
      from jsonb_to_recordset(${json}::jsonb) as n(channel text, payload text)), `);
  }
  return { ctes: sql.join(ctes, sql``), crossJoin: notices.length > 0 ? sql` cross join held_notices` : sql`` };
}

/** Sends what no append took, in one statement; before the commit of the transaction that holds them. */
export async function flushPendingWrites(ctx: ServiceContext): Promise<void> {
  if (!ctx.pendingWrites?.length) return;
  if (ctx.pendingWrites.length === 1 && !(ctx.pendingWrites[0] instanceof HeldNotice)) {
    await ctx.pendingWrites.splice(0)[0]!;
    return;
  }
  const held = takePendingWrites(ctx)!;
  await ctx.db.execute(sql`with ${held.ctes}done as (select 1) select 1 from done${held.crossJoin}`);
}
