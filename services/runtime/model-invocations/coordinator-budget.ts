import { sql } from 'drizzle-orm';
import { BUDGET_CHECK_LOCK, rowsOf } from '../../../db/client.ts';
import { heldByCallsInFlight, spentLimit, withHeld, type Spend, type StoredBudget } from '../../../domain/usage/budget.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';

/** How far up and down a delegation tree the check reads (far past any tree the runtime builds). */
const MAX_DEPTH = 8;

type TreeRow = {
  id: string;
  max_cost_nanos: string | null;
  max_tokens: string | null;
  cost_nanos: string;
  tokens: string;
  calls: string;
  in_flight: string;
};

export type SpentCoordinatorBudget = { limit: 'cost' | 'tokens'; budget: StoredBudget; spend: Spend; held?: Spend };

/**
 * The budget check of a run in a delegation tree (docs/decisions/parallel-delegation.md): a
 * coordinator session's budget covers the work it delegates, so its spend is its own and every
 * descendant session's. Checked for the run's own session (when it has child sessions) and each
 * coordinator session above it, root first. The model calls in flight of the tree's other runs
 * count at the tree's average per call (as `heldBySiblings` does for the project), so a fan-out's
 * children cannot all pass a check that none of their spend has reached yet. `lock`: each tree's
 * checks are serialized by a transaction lock (not the session row, which run transitions
 * update), so each child sees the calls the ones before it started. Returns the first spent
 * budget, or undefined; only sessions with a budget are read past the walk up.
 */
export async function spentCoordinatorBudget(
  tx: ServiceContext,
  input: { runId: string; sessionId: string; inFlightSince: Date; lock: boolean },
): Promise<SpentCoordinatorBudget | undefined> {
  const budgeted = rowsOf<{ id: string }>(
    await tx.db.execute(sql`
      with recursive up(session_id, depth) as (
        select ${input.sessionId}::uuid, 0
        union all
        select s.parent_session_id, up.depth + 1 from up join sessions s on s.id = up.session_id
        where s.parent_session_id is not null and up.depth < ${MAX_DEPTH}::int
      )
      select a.id from up join sessions a on a.id = up.session_id
      where (a.budget_max_cost_nanos is not null or a.budget_max_tokens is not null)
        and (up.depth > 0 or exists (select 1 from sessions c where c.parent_session_id = a.id))
      order by up.depth desc`),
  );
  if (input.lock) {
    for (const { id } of budgeted) await tx.db.execute(sql`select pg_advisory_xact_lock(${BUDGET_CHECK_LOCK}, hashtext(${id}))`);
  }
  for (const { id } of budgeted) {
    const [tree] = rowsOf<TreeRow>(
      await tx.db.execute(sql`
        with recursive tree(id, depth) as (
          select ${id}::uuid, 0
          union all
          select s.id, tree.depth + 1 from tree join sessions s on s.parent_session_id = tree.id where tree.depth < ${MAX_DEPTH}::int
        )
        select root.id, root.budget_max_cost_nanos as max_cost_nanos, root.budget_max_tokens as max_tokens,
          (select coalesce(sum(s.cost_nanos), 0) from sessions s where s.id in (select id from tree)) as cost_nanos,
          (select coalesce(sum(s.input_tokens + s.output_tokens), 0) from sessions s where s.id in (select id from tree)) as tokens,
          (select coalesce(sum(r.model_calls), 0) from runs r where r.session_id in (select id from tree)) as calls,
          (select count(*) from model_invocations mi join runs r on r.id = mi.run_id
            where r.session_id in (select id from tree) and mi.status = 'started' and mi.run_id <> ${input.runId}::uuid
              and mi.started_at > ${input.inFlightSince.toISOString()}::timestamptz) as in_flight
        from sessions root where root.id = ${id}::uuid`),
    );
    if (!tree) continue;
    const budget = { maxCostNanos: numberOrNull(tree.max_cost_nanos), maxTokens: numberOrNull(tree.max_tokens) };
    const spend = { costNanos: Number(tree.cost_nanos), tokens: Number(tree.tokens) };
    const held = heldByCallsInFlight(Number(tree.in_flight), spend, Number(tree.calls));
    const limit = spentLimit(budget, withHeld(spend, held));
    if (limit) return { limit, budget, spend, ...(held ? { held } : {}) };
  }
  return undefined;
}

const numberOrNull = (value: string | null) => (value === null ? null : Number(value));
