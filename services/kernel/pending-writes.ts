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

/** The held writes as the leading CTEs of a statement (`with w0 as (...), w1 as (...), `), emptied; null when none. */
export function takePendingWrites(ctx: ServiceContext): SQL | null {
  const held = ctx.pendingWrites?.splice(0);
  if (!held?.length) return null;
  return sql.join(
    held.map((write, index) => sql`${sql.raw(`held_${index}`)} as (${write.getSQL()}), `),
    sql``,
  );
}

/** Sends what no append took, in one statement; before the commit of the transaction that holds them. */
export async function flushPendingWrites(ctx: ServiceContext): Promise<void> {
  if (!ctx.pendingWrites?.length) return;
  if (ctx.pendingWrites.length === 1) {
    await ctx.pendingWrites.splice(0)[0]!;
    return;
  }
  const held = takePendingWrites(ctx)!;
  await ctx.db.execute(sql`with ${held}done as (select 1) select 1 from done`);
}
