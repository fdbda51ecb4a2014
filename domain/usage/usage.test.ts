import { describe, expect, it } from 'vitest';
import { ValidationError } from '../errors.ts';
import { budgetExplanation, heldByCallsInFlight, monthStartOf, spentLimit, storedProjectBudget, storedSessionBudget, withHeld } from './budget.ts';
import { costNanos } from './cost.ts';
import { ledgerRange } from './ledger.ts';
import { amountOf, nanosOf } from './money.ts';

const prices = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75, source: 'operator' as const };

describe('costNanos', () => {
  it('bills uncached input, cache reads, cache writes and output each at its price', () => {
    // 1,000 input of which 600 read and 100 written: 300 × 3 + 600 × 0.3 + 100 × 3.75 + 50 × 15 per million.
    expect(costNanos({ inputTokens: 1000, outputTokens: 50, cacheReadTokens: 600, cacheWriteTokens: 100 }, prices)).toBe(900_000 + 180_000 + 375_000 + 750_000);
  });

  it('bills cache tokens as input when the preset has no cache prices', () => {
    const plain = { ...prices, cacheRead: null, cacheWrite: null };
    expect(costNanos({ inputTokens: 1000, outputTokens: 0, cacheReadTokens: 600, cacheWriteTokens: 100 }, plain)).toBe(3_000_000);
  });

  it('is 0 for an unpriced preset, and exact at tiny and huge figures', () => {
    expect(costNanos({ inputTokens: 10_000, outputTokens: 10_000, cacheReadTokens: 0, cacheWriteTokens: 0 }, null)).toBe(0);
    // A token at 0.01 per million is 10 nanos; at 0.0001 per million, 0.1 nanos: one rounds to 0, five half up to 1.
    const cheap = { input: 0.01, output: 0.0001, cacheRead: null, cacheWrite: null, source: 'operator' as const };
    expect(costNanos({ inputTokens: 1, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 }, cheap)).toBe(10);
    expect(costNanos({ inputTokens: 0, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 }, cheap)).toBe(0);
    expect(costNanos({ inputTokens: 0, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 }, cheap)).toBe(1);
    // Ten million output tokens at the highest price: 1e7 × 1e6 per million = 1e7 currency units, exact.
    const dear = { input: 1_000_000, output: 1_000_000, cacheRead: null, cacheWrite: null, source: 'operator' as const };
    expect(costNanos({ inputTokens: 0, outputTokens: 10_000_000, cacheReadTokens: 0, cacheWriteTokens: 0 }, dear)).toBe(1e16);
  });

  it('never bills negative uncached input when a vendor reports more cached tokens than input', () => {
    expect(costNanos({ inputTokens: 100, outputTokens: 0, cacheReadTokens: 150, cacheWriteTokens: 0 }, prices)).toBe(45_000);
  });
});

describe('money', () => {
  it('round-trips amounts through nanos to the billionth', () => {
    expect(nanosOf(0.005)).toBe(5_000_000);
    expect(amountOf(nanosOf(0.1 + 0.2))).toBe(0.3);
    expect(amountOf(1)).toBe(1e-9);
  });
});

describe('budgets', () => {
  it('have room while every limit set is above the spend; the crossing call has run', () => {
    const budget = storedSessionBudget({ maxCost: 0.005, maxTokens: 2000 });
    expect(budget).toEqual({ maxCostNanos: 5_000_000, maxTokens: 2000 });
    expect(spentLimit(budget, { costNanos: 4_999_999, tokens: 1999 })).toBeNull();
    expect(spentLimit(budget, { costNanos: 5_000_000, tokens: 0 })).toBe('cost');
    expect(spentLimit(budget, { costNanos: 0, tokens: 2000 })).toBe('tokens');
    expect(spentLimit(storedSessionBudget(null), { costNanos: 1e15, tokens: 1e12 })).toBeNull();
    expect(storedProjectBudget({ maxMonthlyTokens: 10 })).toEqual({ maxCostNanos: null, maxTokens: 10 });
  });

  it('explain themselves with the limit and the spend, never more', () => {
    const budget = { maxCostNanos: 2_500_000_000, maxTokens: null };
    expect(budgetExplanation('project', 'cost', budget, { costNanos: 2_612_000_000, tokens: 9 }, 'EUR')).toBe(
      "The project's monthly budget of 2.5 EUR is spent (2.612 EUR used); raise it to continue.",
    );
  });

  it('hold calls in flight at the average per completed call, so calls that start together stop where the budget does', () => {
    const spent = { costNanos: 300, tokens: 60 };
    const held = heldByCallsInFlight(2, spent, 3);
    expect(held).toEqual({ costNanos: 200, tokens: 40 });
    expect(withHeld(spent, held)).toEqual({ costNanos: 500, tokens: 100 });
    expect(spentLimit({ maxCostNanos: null, maxTokens: 100 }, withHeld(spent, held))).toBe('tokens');
    expect(spentLimit({ maxCostNanos: null, maxTokens: 100 }, spent)).toBeNull();
    // Nothing in flight, or no completed call to average over: nothing held.
    expect(heldByCallsInFlight(0, spent, 3)).toBeUndefined();
    expect(heldByCallsInFlight(2, spent, 0)).toBeUndefined();
    expect(withHeld(spent, undefined)).toBe(spent);
    expect(budgetExplanation('coordinator_session', 'tokens', { maxCostNanos: null, maxTokens: 100 }, spent, 'EUR', held)).toBe(
      "The coordinator session's budget (its delegates' spend included) of 100 tokens is spent (60 used, about 40 more held by sibling runs' calls in flight); raise it to continue.",
    );
  });

  it('count months in UTC', () => {
    expect(monthStartOf(new Date('2026-03-31T23:30:00-05:00'))).toBe('2026-04-01');
  });
});

describe('ledgerRange', () => {
  const now = new Date('2026-11-28T12:00:00Z');
  it('defaults to this month so far, grouped by day', () => {
    expect(ledgerRange({}, now)).toEqual({ from: '2026-11-01', to: '2026-11-28', groupBy: 'day' });
    expect(ledgerRange({ to: '2026-02-14', groupBy: 'agent' }, now)).toEqual({ from: '2026-02-01', to: '2026-02-14', groupBy: 'agent' });
  });

  it('refuses days that do not exist, inverted ranges and more than a year', () => {
    for (const query of [{ from: '2026-02-30' }, { from: '2026-11-02', to: '2026-11-01' }, { from: '2025-01-01', to: '2026-01-02' }]) {
      expect(() => ledgerRange(query, now), JSON.stringify(query)).toThrow(ValidationError);
    }
    expect(ledgerRange({ from: '2025-11-28', to: '2026-11-28' }, now).from).toBe('2025-11-28');
  });
});
