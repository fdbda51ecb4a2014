import type { ModelPrices } from './prices.ts';

/**
 * One model call's token counts as the adapters report them. `inputTokens` includes the cached
 * tokens read and written (every adapter normalizes to that, adapters/models/*), so the
 * uncached input is what remains after both.
 */
export type TokenUsage = { inputTokens: number; outputTokens: number; cacheReadTokens: number; cacheWriteTokens: number };

const MILLION = 1_000_000n;

/** `tokens` at `pricePerMillion` in nanos (rounded half up), exact in bigint. */
function nanosAt(tokens: number, pricePerMillion: number): bigint {
  if (tokens <= 0 || pricePerMillion <= 0) return 0n;
  const nanosPerMillion = BigInt(Math.round(pricePerMillion * 1_000_000_000));
  return (BigInt(tokens) * nanosPerMillion + MILLION / 2n) / MILLION;
}

/**
 * What a call cost, in nanos: uncached input, cache reads, cache writes and output, each at its
 * price (cache prices fall back to the input price). Unpriced (null prices): 0.
 */
export function costNanos(usage: TokenUsage, prices: ModelPrices | null): number {
  if (!prices) return 0;
  const uncached = Math.max(0, usage.inputTokens - usage.cacheReadTokens - usage.cacheWriteTokens);
  const total =
    nanosAt(uncached, prices.input) +
    nanosAt(usage.cacheReadTokens, prices.cacheRead ?? prices.input) +
    nanosAt(usage.cacheWriteTokens, prices.cacheWrite ?? prices.input) +
    nanosAt(usage.outputTokens, prices.output);
  return Number(total);
}
