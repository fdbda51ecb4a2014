import * as v from 'valibot';
import { amountOf, MAX_AMOUNT, nanosOf } from './money.ts';

const MAX_TOKENS = 1_000_000_000_000;

const MaxCost = (path: string) =>
  v.pipe(
    v.number(`${path} must be a number`),
    v.finite(`${path} must be a finite number`),
    v.gtValue(0, `${path} must be greater than 0`),
    v.maxValue(MAX_AMOUNT, `${path} must be at most ${MAX_AMOUNT.toLocaleString('en-US')}`),
  );
const MaxTokens = (path: string) =>
  v.pipe(
    v.number(`${path} must be a number`),
    v.integer(`${path} must be an integer`),
    v.minValue(1, `${path} must be at least 1`),
    v.maxValue(MAX_TOKENS, `${path} must be at most ${MAX_TOKENS.toLocaleString('en-US')}`),
  );

const atLeastOne = (input: object) => Object.values(input).some((value) => value !== undefined && value !== null);

/**
 * A session's budget: `{maxCost?, maxTokens?}` (cost in the installation's currency; tokens
 * input plus output), at least one. `null` in place of the whole object means none.
 */
export const SessionBudgetInput = v.nullable(
  v.pipe(
    v.strictObject({ maxCost: v.optional(v.nullable(MaxCost('budget.maxCost'))), maxTokens: v.optional(v.nullable(MaxTokens('budget.maxTokens'))) }),
    v.check((input) => atLeastOne(input), 'budget needs maxCost, maxTokens or both (null removes the budget)'),
  ),
);
export type SessionBudgetInput = v.InferOutput<typeof SessionBudgetInput>;

/** A project's budget per UTC calendar month: `{maxMonthlyCost?, maxMonthlyTokens?}`, or null for none. */
export const ProjectBudgetInput = v.nullable(
  v.pipe(
    v.strictObject({
      maxMonthlyCost: v.optional(v.nullable(MaxCost('budget.maxMonthlyCost'))),
      maxMonthlyTokens: v.optional(v.nullable(MaxTokens('budget.maxMonthlyTokens'))),
    }),
    v.check((input) => atLeastOne(input), 'budget needs maxMonthlyCost, maxMonthlyTokens or both (null removes the budget)'),
  ),
);
export type ProjectBudgetInput = v.InferOutput<typeof ProjectBudgetInput>;

/** A budget as stored: nanos and tokens, null where unlimited. */
export type StoredBudget = { maxCostNanos: number | null; maxTokens: number | null };

export const storedSessionBudget = (input: SessionBudgetInput | undefined): StoredBudget => ({
  maxCostNanos: input?.maxCost ? nanosOf(input.maxCost) : null,
  maxTokens: input?.maxTokens ?? null,
});

export const storedProjectBudget = (input: ProjectBudgetInput | undefined): StoredBudget => ({
  maxCostNanos: input?.maxMonthlyCost ? nanosOf(input.maxMonthlyCost) : null,
  maxTokens: input?.maxMonthlyTokens ?? null,
});

export const publicSessionBudget = (stored: StoredBudget) =>
  stored.maxCostNanos === null && stored.maxTokens === null
    ? null
    : { maxCost: stored.maxCostNanos === null ? null : amountOf(stored.maxCostNanos), maxTokens: stored.maxTokens };

export const publicProjectBudget = (stored: StoredBudget) =>
  stored.maxCostNanos === null && stored.maxTokens === null
    ? null
    : { maxMonthlyCost: stored.maxCostNanos === null ? null : amountOf(stored.maxCostNanos), maxMonthlyTokens: stored.maxTokens };

/** What has been spent against a budget. */
export type Spend = { costNanos: number; tokens: number };

/**
 * Whether a budget leaves room for another model call: spend strictly below every limit set.
 * Returns the limit that is spent, or null. A call is never split: the one that crosses the
 * limit runs to its end and the next is refused.
 */
export function spentLimit(budget: StoredBudget, spend: Spend): 'cost' | 'tokens' | null {
  if (budget.maxCostNanos !== null && spend.costNanos >= budget.maxCostNanos) return 'cost';
  if (budget.maxTokens !== null && spend.tokens >= budget.maxTokens) return 'tokens';
  return null;
}

/**
 * What `inFlight` model calls not yet answered hold of a budget: each at the average of `spend`
 * over `completedCalls` (docs/decisions/budget-overshoot-bound.md), so calls that start together
 * cannot all pass a check none of their spend has reached. Undefined when nothing is held.
 */
export function heldByCallsInFlight(inFlight: number, spend: Spend, completedCalls: number): Spend | undefined {
  if (inFlight === 0 || completedCalls === 0) return undefined;
  return { costNanos: (inFlight * spend.costNanos) / completedCalls, tokens: (inFlight * spend.tokens) / completedCalls };
}

/** `spend` with what calls in flight hold of the budget added. */
export const withHeld = (spend: Spend, held: Spend | undefined): Spend =>
  held ? { costNanos: spend.costNanos + held.costNanos, tokens: spend.tokens + held.tokens } : spend;

const OWNERS = {
  session: "The session's budget",
  coordinator_session: "The coordinator session's budget (its delegates' spend included)",
  project: "The project's monthly budget",
} as const;

/** The safe explanation of a `budget_exceeded` failure: which budget, its limit and the spend. */
export function budgetExplanation(
  scope: 'session' | 'coordinator_session' | 'project',
  limit: 'cost' | 'tokens',
  budget: StoredBudget,
  spend: Spend,
  currency: string,
  held?: Spend,
): string {
  const owner = OWNERS[scope];
  if (limit === 'cost') {
    const more = held ? `, about ${amountOf(Math.round(held.costNanos))} ${currency} more held by sibling runs' calls in flight` : '';
    return `${owner} of ${amountOf(budget.maxCostNanos!)} ${currency} is spent (${amountOf(spend.costNanos)} ${currency} used${more}); raise it to continue.`;
  }
  const more = held ? `, about ${Math.round(held.tokens).toLocaleString('en-US')} more held by sibling runs' calls in flight` : '';
  return `${owner} of ${budget.maxTokens!.toLocaleString('en-US')} tokens is spent (${spend.tokens.toLocaleString('en-US')} used${more}); raise it to continue.`;
}

/** The first day (UTC) of the month `now` falls in, `YYYY-MM-DD`. */
export const monthStartOf = (now: Date): string => `${now.toISOString().slice(0, 7)}-01`;
