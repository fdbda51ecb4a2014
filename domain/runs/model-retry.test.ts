import { describe, expect, it } from 'vitest';
import { canTransition, isSettled } from './states.ts';
import { modelRetryDelayMs, shouldRetryModel, turnLimitExplanation } from './model-retry.ts';

describe('model retries', () => {
  it('retry transient failures three times after the first attempt, backing off', () => {
    expect([1, 2, 3].map(modelRetryDelayMs)).toEqual([2000, 4000, 8000]);
    expect(shouldRetryModel({ retryable: true, attempt: 3 })).toBe(true);
    expect(shouldRetryModel({ retryable: true, attempt: 4 })).toBe(false);
    expect(shouldRetryModel({ retryable: false, attempt: 1 })).toBe(false);
  });
  it('name the configured maximum when the budget is spent', () => {
    expect(turnLimitExplanation(8)).toContain('8');
  });
});

describe('run state machine', () => {
  it('admits queued runs and settles only once', () => {
    expect(canTransition('queued', 'running')).toBe(true);
    expect(canTransition('queued', 'cancelled')).toBe(true);
    expect(canTransition('queued', 'waiting_for_tool')).toBe(false);
    expect(canTransition('running', 'retry_scheduled')).toBe(true);
    expect(canTransition('retry_scheduled', 'running')).toBe(true);
    expect(canTransition('running', 'queued')).toBe(false);
    expect(canTransition('completed', 'failed')).toBe(false);
    expect(canTransition('running', 'running')).toBe(false);
    expect(isSettled('timed_out')).toBe(true);
    expect(isSettled('waiting_for_approval')).toBe(false);
  });
});
