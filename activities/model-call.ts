import type { ModelInvocationError, ModelResult, ProviderType } from '../adapters/models/types.ts';
import type { ModelPrices } from '../domain/usage/prices.ts';
import { costNanos } from '../domain/usage/cost.ts';
import { countModelCall } from '../services/kernel/metrics/index.ts';

/**
 * One model call as the metrics see it: started when made, counted once by how it ended. The
 * turn and the compaction step both call models; this is the one place either counts a call
 * and turns a provider's refusal into the outcome its verb records.
 */
export function meterModelCall(model: { providerType: ProviderType; preset: string; prices: ModelPrices | null }) {
  const startedAt = performance.now();
  const base = { providerType: model.providerType, preset: model.preset };
  const seconds = () => (performance.now() - startedAt) / 1000;
  return {
    cancelled(): void {
      countModelCall({ ...base, outcome: 'cancelled', seconds: seconds() });
    },
    failed(error: ModelInvocationError) {
      countModelCall({ ...base, outcome: error.retryable ? 'retryable_error' : 'error', seconds: seconds(), errorCode: error.errorCode });
      return {
        kind: 'failed' as const,
        errorCode: error.errorCode,
        errorExplanation: error.message,
        providerFinishReason: error.providerFinishReason,
      };
    },
    succeeded(result: ModelResult): void {
      countModelCall({ ...base, outcome: 'succeeded', seconds: seconds(), usage: result.usage, costNanos: costNanos(result.usage, model.prices) });
    },
  };
}
