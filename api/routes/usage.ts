import { Hono } from 'hono';
import { UsageQuery } from '../../domain/usage/ledger.ts';
import { UsageLedgerShape } from '../../domain/public-shapes/usage.ts';
import { readUsageLedger } from '../../services/kernel/usage/index.ts';
import type { AppDeps } from '../deps.ts';
import type { AppEnv } from '../env.ts';
import { route } from '../openapi/route-doc.ts';
import { validQuery } from '../validation.ts';

/** The project's usage ledger: tokens, cost and runs per day, agent, preset or API key. */
export function usageRoutes(deps: AppDeps) {
  return new Hono<AppEnv>().get(
    '/projects/:projectId/usage',
    route({
      summary: 'Usage and cost over UTC days `from` through `to` (default: this month), grouped by `day`, `agent`, `preset` or `apiKey`',
      scopes: ['usage:read'],
      query: UsageQuery,
      responses: { 200: { description: 'The range, the currency, the totals and one entry per group', schema: UsageLedgerShape } },
    }),
    async (c) => {
      const input = validQuery(c, UsageQuery);
      return c.json(await readUsageLedger({ ctx: c.var.ctx, deps: { currency: deps.settings.currency }, input }));
    },
  );
}
