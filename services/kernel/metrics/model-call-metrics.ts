import { amountOf } from '../../../domain/usage/money.ts';
import { metrics } from './registry.ts';

export type ModelCallOutcome = 'succeeded' | 'retryable_error' | 'error' | 'cancelled';
type Tokens = { inputTokens: number; outputTokens: number; cacheReadTokens: number; cacheWriteTokens: number };

/**
 * One model call attempt as the worker saw it: its outcome and latency by provider type and
 * preset, the error code of a failure, and the tokens and cost of a success (a failed attempt's partial
 * usage is not billed by the vendors we speak, so it is not counted).
 */
export function countModelCall(input: {
  providerType: string;
  preset: string;
  outcome: ModelCallOutcome;
  seconds: number;
  errorCode?: string;
  usage?: Tokens;
  costNanos?: number;
}): void {
  const labels = { provider_type: input.providerType, preset: input.preset, outcome: input.outcome };
  metrics.modelCalls.inc(labels);
  metrics.modelCallDuration.observe(labels, input.seconds);
  if (input.errorCode) metrics.modelCallErrors.inc({ provider_type: input.providerType, error_code: input.errorCode });
  if (input.usage) {
    const base = { provider_type: input.providerType, preset: input.preset };
    metrics.modelTokens.inc({ ...base, kind: 'input' }, input.usage.inputTokens);
    metrics.modelTokens.inc({ ...base, kind: 'output' }, input.usage.outputTokens);
    metrics.modelTokens.inc({ ...base, kind: 'cache_read' }, input.usage.cacheReadTokens);
    metrics.modelTokens.inc({ ...base, kind: 'cache_write' }, input.usage.cacheWriteTokens);
    metrics.modelCost.inc(base, amountOf(input.costNanos ?? 0));
  }
}
