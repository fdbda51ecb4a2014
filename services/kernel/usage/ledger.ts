import { sql } from 'drizzle-orm';
import type * as v from 'valibot';
import { rowsOf } from '../../../db/client.ts';
import { assertHasScopes } from '../../../domain/scopes.ts';
import { ledgerRange, type LedgerGroup, type UsageQuery } from '../../../domain/usage/ledger.ts';
import { amountOf } from '../../../domain/usage/money.ts';
import type { UsageLedgerShape } from '../../../domain/public-shapes/usage.ts';
import type { ServiceContext } from '../service-context.ts';
import { requireActor } from '../require-actor.ts';

export type UsageLedger = v.InferOutput<typeof UsageLedgerShape>;

type GroupRow = {
  key: string | null;
  runs: string;
  invocations: string;
  input_tokens: string;
  output_tokens: string;
  cache_read_tokens: string;
  cache_write_tokens: string;
  cost_nanos: string;
};

const GROUP_KEY: Record<LedgerGroup, ReturnType<typeof sql.raw>> = {
  day: sql.raw(`to_char(day, 'YYYY-MM-DD')`),
  agent: sql.raw('agent_id::text'),
  preset: sql.raw('preset'),
  apiKey: sql.raw('api_key_id::text'),
};

const figures = (row: GroupRow) => ({
  runs: Number(row.runs),
  invocations: Number(row.invocations),
  inputTokens: Number(row.input_tokens),
  outputTokens: Number(row.output_tokens),
  cacheReadTokens: Number(row.cache_read_tokens),
  cacheWriteTokens: Number(row.cache_write_tokens),
  costNanos: Number(row.cost_nanos),
});
type Figures = ReturnType<typeof figures>;

const ZERO: Figures = { runs: 0, invocations: 0, inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costNanos: 0 };

const add = (a: Figures, b: Figures): Figures => ({
  runs: a.runs + b.runs,
  invocations: a.invocations + b.invocations,
  inputTokens: a.inputTokens + b.inputTokens,
  outputTokens: a.outputTokens + b.outputTokens,
  cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
  cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
  costNanos: a.costNanos + b.costNanos,
});

const shown = ({ costNanos, ...rest }: Figures) => ({ ...rest, cost: amountOf(costNanos) });

/** Every day from `from` to `to`, both included. */
function daysOf(from: string, to: string): string[] {
  const days: string[] = [];
  for (let at = Date.parse(`${from}T00:00:00Z`); at <= Date.parse(`${to}T00:00:00Z`); at += 86_400_000) days.push(new Date(at).toISOString().slice(0, 10));
  return days;
}

/**
 * The project's usage ledger (`GET /projects/{id}/usage`): runs, model calls, tokens and cost
 * per UTC day, agent, preset or creating API key over the days `from` through `to`, read from
 * the daily rollup each completed call adds to (docs/decisions/usage-ledger.md). Grouped by
 * day, every day of the range is listed, idle ones with zeros, so a chart needs no gaps filled;
 * the totals are the groups' sums. A run counts once, in the group and on the day of its first
 * completed call.
 */
export async function readUsageLedger({ ctx, deps, input }: { ctx: ServiceContext; deps: { currency: string }; input: UsageQuery }): Promise<UsageLedger> {
  const actor = requireActor(ctx);
  assertHasScopes(actor.scopes, ['usage:read']);
  const range = ledgerRange(input, ctx.clock.now());
  const key = GROUP_KEY[range.groupBy];
  const rows = rowsOf<GroupRow>(
    await ctx.db.execute(sql`
      select ${key} as key, sum(runs) as runs, sum(invocations) as invocations, sum(input_tokens) as input_tokens, sum(output_tokens) as output_tokens,
        sum(cache_read_tokens) as cache_read_tokens, sum(cache_write_tokens) as cache_write_tokens, sum(cost_nanos) as cost_nanos
      from usage_daily
      where project_id = ${actor.projectId}::uuid and day between ${range.from}::date and ${range.to}::date
      group by 1
      order by 1 nulls last`),
  );
  const groups = new Map(rows.map((row) => [row.key, figures(row)]));
  const keys = range.groupBy === 'day' ? daysOf(range.from, range.to) : [...groups.keys()];
  const totals = [...groups.values()].reduce(add, ZERO);
  return {
    ...range,
    currency: deps.currency,
    totals: shown(totals),
    groups: keys.map((groupKey) => ({ key: groupKey, ...shown(groups.get(groupKey) ?? ZERO) })),
  };
}
