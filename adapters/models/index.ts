import { gatewayAdapter } from './gateway/chat.ts';
import { traceModelCall } from './trace.ts';
import type { ModelAdapter, ModelRequest, ModelResult, ProviderType } from './types.ts';
import { vendorAAdapter } from './vendor-a/chat.ts';
import { vendorBAdapter } from './vendor-b/chat.ts';
import { vendorCAdapter } from './vendor-c/chat.ts';

export * from './types.ts';
export { MODEL_ERROR_CODES, type ModelErrorCode } from './errors.ts';

const ADAPTERS: Record<ProviderType, ModelAdapter> = {
  vendor_a: vendorAAdapter,
  vendor_b: vendorBAdapter,
  vendor_c: vendorCAdapter,
  gateway: gatewayAdapter,
};

/** The adapter speaking `providerType`'s wire protocol (spec provider-type mapping). */
export function adapterFor(providerType: ProviderType): ModelAdapter {
  const adapter = ADAPTERS[providerType];
  if (!adapter) throw new Error(`No model adapter for provider type ${String(providerType)}`);
  return adapter;
}

/**
 * One model attempt: dispatches on `request.providerType` and returns the normalized result,
 * or throws `ModelInvocationError` with a stable `errorCode` and `retryable` flag. It does no
 * retrying itself; the workflow owns attempts, deadlines and the turn budget.
 */
export function invokeModel(request: ModelRequest): Promise<ModelResult> {
  const adapter = adapterFor(request.providerType);
  return traceModelCall(request, () => adapter(request));
}
