import { sql } from 'drizzle-orm';
import type { TokenUsage } from '../../../domain/usage/cost.ts';
import type { ServiceContext } from '../service-context.ts';

export type RollupAddition = {
  organizationId: string;
  projectId: string;
  /** The UTC day the call completed, `YYYY-MM-DD`. */
  day: string;
  agentId: string;
  preset: string;
  apiKeyId: string | null;
  runs: number;
  usage: TokenUsage;
  costNanos: number;
};

/**
 * Adds one completed model call to its day's row of the usage rollup (one statement, an
 * upsert on the row's whole key; a null API key is a key like any other).
 */
export function addToUsageRollup(tx: ServiceContext, add: RollupAddition) {
  const { usage } = add;
  return tx.db.execute(sql`
    insert into usage_daily (organization_id, project_id, day, agent_id, preset, api_key_id, runs, invocations, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_nanos)
    values (${add.organizationId}::uuid, ${add.projectId}::uuid, ${add.day}::date, ${add.agentId}::uuid, ${add.preset}, ${add.apiKeyId}::uuid, ${add.runs}, 1,
      ${usage.inputTokens}, ${usage.outputTokens}, ${usage.cacheReadTokens}, ${usage.cacheWriteTokens}, ${add.costNanos})
    on conflict on constraint usage_daily_key do update set
      runs = usage_daily.runs + excluded.runs, invocations = usage_daily.invocations + 1,
      input_tokens = usage_daily.input_tokens + excluded.input_tokens, output_tokens = usage_daily.output_tokens + excluded.output_tokens,
      cache_read_tokens = usage_daily.cache_read_tokens + excluded.cache_read_tokens, cache_write_tokens = usage_daily.cache_write_tokens + excluded.cache_write_tokens,
      cost_nanos = usage_daily.cost_nanos + excluded.cost_nanos`);
}
