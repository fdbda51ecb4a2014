import { sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import { rowsOf } from '../../db/client.ts';
import type { HeldItem, ServiceContext } from './service-context.ts';

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
  if (ctx.pendingWrites) ctx.pendingWrites.push({ kind: 'write', write });
  else await write;
}

/**
 * A NOTIFY sent at the commit of the transaction (as every NOTIFY is), held like a write so that it
 * rides in the transaction's next event append or its last statement instead of a round trip of
 * its own. A live-output signal that must reach listeners with the commit uses it. Outside a
 * transaction it is sent at once. Unlike a data-modifying CTE, a plain `select pg_notify(...)` CTE
 * runs only when the statement reads it: the statement cross-joins `held_notices` (one row, an
 * aggregate), which sends the notices in the order they were held.
 */
export async function holdNotice(ctx: ServiceContext, notice: { channel: string; payload: string }): Promise<void> {
  if (ctx.pendingWrites) ctx.pendingWrites.push({ kind: 'notice', ...notice });
  else await ctx.db.execute(sql`select pg_notify(${notice.channel}, ${notice.payload})`);
}

/**
 * A product-event append held for the transaction's last statement (`holdProductEvents` in
 * events/append.ts): its CTEs, and `read`, the one its outer query must read (a plain CTE that
 * notifies).
 */
export function holdAppendForLast(ctx: ServiceContext, append: { ctes: SQL; read: SQL }): void {
  if (!ctx.pendingWrites) throw new Error('an append held for the last statement needs a transaction');
  ctx.pendingWrites.push({ kind: 'append', ...append });
}

/**
 * A check held for the transaction's last statement: `expression`, a scalar read in that
 * statement's snapshot, is handed to `check`, which throws to refuse (the transaction then rolls
 * back with everything that statement wrote). A rule that needs what was committed when the rows
 * are written (a quota's count) costs no statement of its own.
 */
export function holdCheck(ctx: ServiceContext, expression: SQL, check: (value: unknown) => void): void {
  if (!ctx.pendingWrites) throw new Error('holdCheck needs a transaction');
  ctx.pendingWrites.push({ kind: 'check', expression, check });
}

/** What a statement takes of the held writes: its leading CTEs, and what its outer query must cross join (the notices). */
export type TakenWrites = { ctes: SQL; crossJoin: SQL };

/**
 * The held writes as the leading CTEs of a statement (`with held_0 as (...), held_1 as (...), `)
 * and the `cross join held_notices` its outer query adds (empty without notices), emptied; null
 * when none. A held append or check waits for the last statement: an append taking writes after
 * one was held would write its events out of order, so it throws.
 */
export function takePendingWrites(ctx: ServiceContext): TakenWrites | null {
  if (ctx.pendingWrites?.some((item) => item.kind === 'append' || item.kind === 'check'))
    throw new Error('events or checks are held for the commit: nothing may append after them');
  const held = ctx.pendingWrites?.splice(0);
  if (!held?.length) return null;
  return composeHeld(held);
}

type Held<K extends HeldItem['kind']> = Extract<HeldItem, { kind: K }>;
const ofKind = <K extends HeldItem['kind']>(held: HeldItem[], kind: K) => held.filter((item): item is Held<K> => item.kind === kind);

function composeHeld(held: HeldItem[]): TakenWrites & { checks: Held<'check'>[] } {
  const notices = ofKind(held, 'notice');
  const appends = ofKind(held, 'append');
  if (appends.length > 1) throw new Error('one held append per transaction');
  const ctes = ofKind(held, 'write').map((item, index) => sql`${sql.raw(`held_${index}`)} as (${item.write.getSQL()}), `);
  for (const append of appends) ctes.push(sql`${append.ctes}, `);
  if (notices.length > 0) {
    const json = JSON.stringify(notices.map((notice) => ({ channel: notice.channel, payload: notice.payload })));
    ctes.push(sql`held_notices as (
      select count(pg_notify(n.channel, n.payload)) as sent
      from jsonb_to_recordset(${json}::jsonb) as n(channel text, payload text)), `);
  }
  const joins = [...(notices.length > 0 ? [sql` cross join held_notices`] : []), ...appends.map((append) => sql` cross join ${append.read}`)];
  return { ctes: sql.join(ctes, sql``), crossJoin: sql.join(joins, sql``), checks: ofKind(held, 'check') };
}

/**
 * Sends what no append took, in one statement, before the commit of the transaction that holds
 * them, with `last` (a data-modifying statement, the idempotency record's claim) when given:
 * returns how many rows `last` returned. Runs the held checks on what the statement read.
 */
export async function flushPendingWrites(ctx: ServiceContext, last?: SQLWrapper): Promise<number> {
  const held = ctx.pendingWrites?.splice(0) ?? [];
  if (held.length === 0 && !last) return 0;
  const [only] = held;
  if (held.length === 1 && !last && only!.kind === 'write') {
    await only!.write;
    return 0;
  }
  const taken = composeHeld(held);
  const lastCte = last ? sql`last_write as (${last.getSQL()}), ` : sql``;
  const checks = taken.checks.map((check, index) => sql`, ${check.expression} as ${sql.raw(`check_${index}`)}`);
  const [row] = rowsOf<Record<string, unknown>>(
    await ctx.db.execute(sql`
      with ${taken.ctes}${lastCte}done as (select 1)
      select ${last ? sql`(select count(*) from last_write)::int` : sql`0`} as last${sql.join(checks, sql``)}
      from done${taken.crossJoin}`),
  );
  taken.checks.forEach((check, index) => check.check(row?.[`check_${index}`] ?? null));
  return Number(row?.last ?? 0);
}
