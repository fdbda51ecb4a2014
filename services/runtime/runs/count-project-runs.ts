import { and, eq, inArray, sql, type SQL } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Executor } from '../../../db/client.ts';
import { runs } from '../../../db/schema/index.ts';
import type { RunState } from '../../../domain/runs/states.ts';

/**
 * A project's runs in `states`, counted up to `upTo` (the count stops there, so checking a limit
 * costs the same however large the backlog behind it), as an expression for a statement that does
 * more too (a run's insert returns the count from before it). Its table is aliased, so it reads
 * the same inside a statement on `runs`.
 */
export function projectRunsCount(db: Executor, projectId: string, states: readonly RunState[], upTo: number): SQL<number> {
  const counted = alias(runs, 'counted_runs');
  const upToLimit = db
    .select({ one: sql`1` })
    .from(counted)
    .where(and(eq(counted.projectId, projectId), inArray(counted.state, [...states])))
    .limit(upTo);
  return sql<number>`(select count(*)::int from (${upToLimit}) as up_to_limit)`;
}
