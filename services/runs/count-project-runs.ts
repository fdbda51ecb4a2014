import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { runs } from '../../db/schema/index.ts';
import type { RunState } from '../../domain/runs/states.ts';

/**
 * A project's runs in `states`, counted up to `upTo` (the count stops there, so checking a limit
 * costs the same however large the backlog behind it).
 */
export async function countProjectRuns(db: Executor, projectId: string, states: readonly RunState[], upTo: number): Promise<number> {
  const counted = db
    .select({ one: sql`1` })
    .from(runs)
    .where(and(eq(runs.projectId, projectId), inArray(runs.state, [...states])))
    .limit(upTo)
    .as('counted');
  const [row] = await db.select({ count: sql<number>`count(*)::int` }).from(counted);
  return row?.count ?? 0;
}
