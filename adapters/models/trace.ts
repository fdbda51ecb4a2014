import { trace } from '@opentelemetry/api';
import { markFailed, serverAttributes, SpanKind, withSpan } from '../tracing.ts';
import { ModelInvocationError, type ModelRequest, type ModelResult, type ProviderType } from './types.ts';

/**
 * The model call's span, with the OpenTelemetry GenAI semantic conventions: named
 * `chat <model>`, kind CLIENT, with `gen_ai.system`, `gen_ai.operation.name`,
 * `gen_ai.request.model`, `gen_ai.response.model` (as the vendor answered it), token usage and
 * finish reason, and the endpoint's host. Never the prompt, the messages, the tools' schemas or
 * arguments, the answer or the key (the conventions' content attributes are opt-in; we never opt in).
 */

/** `gen_ai.system` of each provider type (the GenAI registry's names; `openrouter` for the gateway). */
const GEN_AI_SYSTEM: Record<ProviderType, string> = {
  vendor_a: 'openai',
  vendor_b: 'anthropic',
  vendor_c: 'gcp.gemini',
  gateway: 'openrouter',
};

export function traceModelCall(request: ModelRequest, call: () => Promise<ModelResult>): Promise<ModelResult> {
  const attributes = {
    'gen_ai.operation.name': 'chat',
    'gen_ai.system': GEN_AI_SYSTEM[request.providerType] ?? request.providerType,
    'gen_ai.request.model': request.model,
    'agent_runtime.provider_type': request.providerType,
    ...serverAttributes(request.baseUrl),
  };
  return withSpan(`chat ${request.model}`, { kind: SpanKind.CLIENT, attributes }, async (span) => {
    try {
      const result = await call();
      span.setAttributes({
        'gen_ai.usage.input_tokens': result.usage.inputTokens,
        'gen_ai.usage.output_tokens': result.usage.outputTokens,
        'gen_ai.response.finish_reasons': [result.finishReason],
      });
      return result;
    } catch (error) {
      if (error instanceof ModelInvocationError) {
        if (error.usage) span.setAttributes({ 'gen_ai.usage.input_tokens': error.usage.inputTokens, 'gen_ai.usage.output_tokens': error.usage.outputTokens });
        if (error.httpStatus !== null) span.setAttribute('http.response.status_code', error.httpStatus);
        markFailed(span, error.errorCode);
      }
      throw error;
    }
  });
}

/** Called by the adapters with the model the vendor says answered (`gen_ai.response.model`). */
export function noteResponseModel(model: unknown): void {
  if (typeof model === 'string' && model !== '' && model.length <= 200) trace.getActiveSpan()?.setAttribute('gen_ai.response.model', model);
}
