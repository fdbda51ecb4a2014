import { describe, expect, it } from 'vitest';
import { describeBudget, formatCost, formatTokens } from './money.ts';

describe('money and token figures', () => {
  it('shows a cheap call to the millionth and larger amounts to the cent', () => {
    expect(formatCost(0)).toBe('0');
    expect(formatCost(0.00056)).toBe('0.00056');
    expect(formatCost(0.0000004)).toBe('0');
    expect(formatCost(1234.5678, 'USD')).toBe('1,234.57 USD');
    expect(formatTokens(1234567)).toBe('1,234,567');
  });

  it('describes a budget by the limits it sets', () => {
    expect(describeBudget(null)).toBe('none');
    expect(describeBudget({ cost: null, tokens: null })).toBe('none');
    expect(describeBudget({ cost: 5, tokens: 10000 }, 'EUR')).toBe('cost at most 5 EUR · at most 10,000 tokens');
    expect(describeBudget({ cost: null, tokens: 200 })).toBe('at most 200 tokens');
  });
});
