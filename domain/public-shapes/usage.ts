import * as v from 'valibot';
import { LEDGER_GROUPS } from '../usage/ledger.ts';
import { Cost } from './common.ts';

const Count = v.pipe(v.number(), v.integer(), v.minValue(0));
const Limit = v.nullable(v.pipe(v.number(), v.minValue(0)));

/** A session's budget: either limit may be null (none). */
export const SessionBudgetShape = v.strictObject({ maxCost: Limit, maxTokens: v.nullable(Count) });

/** A project's budget per UTC calendar month. */
export const ProjectBudgetShape = v.strictObject({ maxMonthlyCost: Limit, maxMonthlyTokens: v.nullable(Count) });

/** A preset's prices per million tokens in the installation's currency; cache prices null: billed as input. */
export const ModelPricesShape = v.strictObject({
  input: v.pipe(v.number(), v.minValue(0)),
  output: v.pipe(v.number(), v.minValue(0)),
  cacheRead: v.nullable(v.pipe(v.number(), v.minValue(0))),
  cacheWrite: v.nullable(v.pipe(v.number(), v.minValue(0))),
  source: v.picklist(['catalog', 'operator']),
});

const UsageFigures = {
  runs: Count,
  invocations: Count,
  inputTokens: Count,
  outputTokens: Count,
  cacheReadTokens: Count,
  cacheWriteTokens: Count,
  cost: Cost,
};

/** One group of the ledger: its key (a day, an agent id, a preset key or an API key id; null: runs no key created). */
export const UsageGroupShape = v.strictObject({ key: v.nullable(v.string()), ...UsageFigures });

/** `GET /projects/{id}/usage`. */
export const UsageLedgerShape = v.strictObject({
  from: v.pipe(v.string(), v.isoDate()),
  to: v.pipe(v.string(), v.isoDate()),
  groupBy: v.picklist(LEDGER_GROUPS),
  currency: v.string(),
  totals: v.strictObject(UsageFigures),
  groups: v.array(UsageGroupShape),
});
