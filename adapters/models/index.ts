import { describeJsonProblem, unstorableJsonPart } from '../../domain/json-limits.ts';
import { modelError } from './errors.ts';
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
  return traceModelCall(request, async () => storable(request, await adapter(request)));
}

/**
 * A result whose text, thinking or tool arguments no column can store (domain/json-limits.ts: a
 * lone surrogate the vendor escaped, a NUL, nesting past the limit) is an invalid response, as a
 * malformed body is: the attempt fails visibly and may be retried, instead of the transcript's
 * write failing (or overflowing the stack) after the call.
 */
function storable(request: ModelRequest, result: ModelResult): ModelResult {
  const problem = unstorableJsonPart(result);
  if (!problem) return result;
  const where = problem.path.slice(0, 3).join('.');
  throw modelError(
    'provider_invalid_response',
    `The ${request.providerType} provider answered a result that cannot be stored: ${where} ${describeJsonProblem(problem)}`,
  );
}
