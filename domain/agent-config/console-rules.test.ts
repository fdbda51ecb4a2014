import { describe, expect, it } from 'vitest';
import { consoleConfigProblem } from './console-rules.ts';

const valid = { systemPrompt: 'You help customers, politely.', limits: { maxTurns: 32, timeoutMs: 60_000 } };

describe("the console's agent config rules", () => {
  it('takes a config within them, with the default timeout when none is given', () => {
    expect(consoleConfigProblem(valid)).toBeNull();
    expect(consoleConfigProblem({ ...valid, limits: { maxTurns: 32 } })).toBeNull();
    expect(consoleConfigProblem({ ...valid, limits: { maxTurns: 32, timeoutMs: 1_000 } })).toBeNull();
    expect(consoleConfigProblem({ ...valid, limits: { maxTurns: 32, timeoutMs: 3_600_000 } })).toBeNull();
  });

  it('refuses a system prompt under 20 characters, maxTurns other than 32, and a timeout outside 1,000-3,600,000', () => {
    expect(consoleConfigProblem({ ...valid, systemPrompt: 'x'.repeat(19) }, 'initialConfig')).toEqual({
      path: 'initialConfig.systemPrompt',
      message: 'must be at least 20 characters in the console',
    });
    expect(consoleConfigProblem({ ...valid, systemPrompt: `   ${'x'.repeat(19)}   ` })?.path).toBe('config.systemPrompt');
    for (const maxTurns of [1, 31, 33, 256]) expect(consoleConfigProblem({ ...valid, limits: { maxTurns } })?.path).toBe('config.limits.maxTurns');
    for (const timeoutMs of [999, 3_600_001, 1_500.5])
      expect(consoleConfigProblem({ ...valid, limits: { maxTurns: 32, timeoutMs } })?.path).toBe('config.limits.timeoutMs');
  });
});
