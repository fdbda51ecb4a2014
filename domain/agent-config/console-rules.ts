/**
 * The console's own limits on an agent config (spec 1 `systemPrompt`, spec 3 "Limits"), on top
 * of the API's: a system prompt of at least 20 characters, `maxTurns` exactly 32 (its console
 * default; the API takes 1-256), `timeoutMs` 1,000-3,600,000 (default 60,000; the API takes any
 * value from 1,000). Pure, so the console and its tests share it.
 */
export const CONSOLE_AGENT_RULES = {
  systemPromptMinLength: 20,
  maxTurns: 32,
  timeoutMs: { min: 1_000, max: 3_600_000, default: 60_000 },
} as const;

export type ConsoleProblem = { path: string; message: string };

/** The first console rule `config` breaks (its path under `root`), or null. */
export function consoleConfigProblem(
  config: { systemPrompt?: unknown; limits?: { maxTurns?: unknown; timeoutMs?: unknown } },
  root = 'config',
): ConsoleProblem | null {
  const { systemPromptMinLength, maxTurns, timeoutMs } = CONSOLE_AGENT_RULES;
  if (typeof config.systemPrompt !== 'string' || config.systemPrompt.trim().length < systemPromptMinLength) {
    return { path: `${root}.systemPrompt`, message: `must be at least ${systemPromptMinLength} characters in the console` };
  }
  if (config.limits?.maxTurns !== maxTurns) return { path: `${root}.limits.maxTurns`, message: `must be ${maxTurns} in the console (the API accepts 1-256)` };
  const timeout = config.limits?.timeoutMs ?? timeoutMs.default;
  if (typeof timeout !== 'number' || !Number.isInteger(timeout) || timeout < timeoutMs.min || timeout > timeoutMs.max) {
    return {
      path: `${root}.limits.timeoutMs`,
      message: `must be an integer from ${timeoutMs.min.toLocaleString('en')} to ${timeoutMs.max.toLocaleString('en')} in the console`,
    };
  }
  return null;
}
