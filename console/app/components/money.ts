/**
 * Figures as the console shows them. Amounts are in the installation's currency and exact to
 * the billionth: under one unit six decimals show what a cheap call cost, above it two do.
 */
export const formatTokens = (count: number) => count.toLocaleString('en');

export const formatCost = (amount: number, currency?: string) =>
  `${amount.toLocaleString('en', { maximumFractionDigits: amount >= 1 ? 2 : 6 })}${currency ? ` ${currency}` : ''}`;

/** A budget in words: `cost at most 5 USD · at most 10,000 tokens`, or `none`. */
export function describeBudget(budget: { cost: number | null; tokens: number | null } | null, currency?: string): string {
  const limits = [
    budget?.cost != null ? `cost at most ${formatCost(budget.cost, currency)}` : null,
    budget?.tokens != null ? `at most ${formatTokens(budget.tokens)} tokens` : null,
  ].filter(Boolean);
  return limits.length ? limits.join(' · ') : 'none';
}
