import { describe, expect, it } from 'vitest';
import { buildGatewayRequest, parseGatewayResponse, providerObject } from './gateway/chat.ts';
import { adapterFor } from './index.ts';
import { ModelInvocationError, type ModelRequest, type ProviderType } from './types.ts';
import { buildVendorARequest, parseVendorAResponse } from './vendor-a/chat.ts';
import { buildVendorBRequest } from './vendor-b/chat.ts';
import { buildVendorCRequest, parseVendorCResponse } from './vendor-c/chat.ts';

// Pure request/response mapping; the wire round trips live in test/integration/model-adapters.

function request(providerType: ProviderType, overrides: Partial<ModelRequest> = {}): ModelRequest {
  return { providerType, baseUrl: 'http://unused', apiKey: 'k', model: 'm', settings: null, routing: {}, systemPrompt: '', messages: [], tools: [], ...overrides };
}

const thrown = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    return error as ModelInvocationError;
  }
  throw new Error('expected a throw');
};

describe('vendor_a mapping', () => {
  it('applies defaults to omitted settings', () => {
    expect(buildVendorARequest(request('vendor_a', { model: 'gpt-5.1' }))).toMatchObject({ reasoning: { effort: 'medium', summary: 'auto' }, text: { verbosity: 'medium' } });
  });

  it('omits reasoning and verbosity for a non-reasoning model', () => {
    const body = buildVendorARequest(request('vendor_a', { model: 'gpt-4.1' }));
    expect(body.reasoning).toBeUndefined();
    expect(body.include).toBeUndefined();
    expect(body.text).toEqual({ format: { type: 'text' } });
  });

  it('keeps an explicit -pro model as it is', () => {
    expect(buildVendorARequest(request('vendor_a', { model: 'gpt-5-pro', settings: { mode: 'pro', effort: 'high' } })).model).toBe('gpt-5-pro');
  });

  it('refuses stored settings that do not validate', () => {
    const error = thrown(() => buildVendorARequest(request('vendor_a', { settings: { effort: 'extreme' } })));
    expect({ code: error.errorCode, retryable: error.retryable }).toEqual({ code: 'invalid_model_settings', retryable: false });
    expect(error.message).toContain('effort');
  });

  it('ignores replay items from another model', () => {
    const body = buildVendorARequest(
      request('vendor_a', {
        model: 'gpt-5.2',
        messages: [{ role: 'assistant', text: 'hi', toolCalls: [], replay: { providerType: 'vendor_a', model: 'gpt-5.1', items: [{ type: 'reasoning' }] } }],
      }),
    );
    expect(body.input).toEqual([{ type: 'message', role: 'assistant', content: 'hi' }]);
  });

  it('a refusal part is content_filter; a failed response throws with usage', () => {
    const refusal = { status: 'completed', output: [{ type: 'message', content: [{ type: 'refusal', refusal: 'I cannot help.' }] }] };
    expect(parseVendorAResponse(request('vendor_a'), refusal)).toMatchObject({ text: 'I cannot help.', finishReason: 'content_filter' });
    const failed = { status: 'failed', error: { code: 'server_error', message: 'x' }, output: [], usage: { input_tokens: 5, output_tokens: 0 } };
    const error = thrown(() => parseVendorAResponse(request('vendor_a'), failed));
    expect({ code: error.errorCode, retryable: error.retryable, usage: error.usage?.inputTokens }).toEqual({ code: 'provider_server_error', retryable: true, usage: 5 });
  });
});

describe('vendor_b mapping', () => {
  it('skips empty text blocks and sends unparsed arguments as an object', () => {
    const body = buildVendorBRequest(
      request('vendor_b', {
        messages: [
          { role: 'user', text: 'go' },
          { role: 'assistant', text: '', toolCalls: [{ id: 't1', name: 'f', arguments: '{"a":', argumentsText: '{"a":' }] },
        ],
      }),
    );
    expect(body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'go' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'f', input: { arguments: '{"a":' } }] },
    ]);
    expect(body.system).toBeUndefined();
    expect(body.tools).toBeUndefined();
    expect(body).toMatchObject({ max_tokens: 20000, thinking: { type: 'adaptive' }, output_config: { effort: 'high' } });
  });
});

describe('vendor_c mapping', () => {
  it('maps effort onto levels (Gemini 3) and budgets (Gemini 2.5)', () => {
    const config = (model: string, effort: string) => (buildVendorCRequest(request('vendor_c', { model, settings: { effort } })).generationConfig as any).thinkingConfig;
    expect(config('gemini-3-pro-preview', 'xhigh')).toEqual({ thinkingLevel: 'high', includeThoughts: true });
    expect(config('gemini-3-flash', 'medium')).toEqual({ thinkingLevel: 'medium', includeThoughts: true });
    expect(config('gemini-2.5-pro', 'xhigh')).toEqual({ thinkingBudget: 32768, includeThoughts: true });
    expect(config('gemini-2.5-flash', 'xhigh')).toEqual({ thinkingBudget: 24576, includeThoughts: true });
    expect(config('gemini-2.5-flash', 'low')).toEqual({ thinkingBudget: 1024, includeThoughts: true });
  });

  it('sends vendor-issued call ids back, and no placeholder signature to Gemini 2.x', () => {
    const body = buildVendorCRequest(
      request('vendor_c', {
        model: 'gemini-2.5-flash',
        messages: [
          { role: 'assistant', text: '', toolCalls: [{ id: 'vendor-id-1', name: 'f', arguments: {}, argumentsText: '{}' }] },
          { role: 'tool', toolCallId: 'vendor-id-1', toolName: 'f', result: 1, isError: false },
        ],
      }),
    );
    expect(body.contents).toEqual([
      { role: 'model', parts: [{ functionCall: { id: 'vendor-id-1', name: 'f', args: {} } }] },
      { role: 'user', parts: [{ functionResponse: { id: 'vendor-id-1', name: 'f', response: { output: 1 } } }] },
    ]);
  });

  it('synthesizes ids that are stable per response and differ across turns', () => {
    const answer = { responseId: 'r1', candidates: [{ content: { parts: [{ functionCall: { name: 'f', args: {} } }, { functionCall: { name: 'g', args: {} } }] }, finishReason: 'STOP' }] };
    const ids = (messages: ModelRequest['messages']) => parseVendorCResponse(request('vendor_c', { messages }), answer).toolCalls.map((call) => call.id);
    const first = ids([{ role: 'user', text: 'a' }]);
    expect(first).toEqual(ids([{ role: 'user', text: 'a' }]));
    expect(new Set(first).size).toBe(2);
    expect(ids([{ role: 'user', text: 'a' }, { role: 'user', text: 'b' }])).not.toEqual(first);
  });

  it('a malformed function call is a retryable invalid response', () => {
    const error = thrown(() => parseVendorCResponse(request('vendor_c'), { candidates: [{ content: { parts: [] }, finishReason: 'MALFORMED_FUNCTION_CALL' }] }));
    expect({ code: error.errorCode, retryable: error.retryable, finish: error.providerFinishReason }).toEqual({ code: 'provider_invalid_response', retryable: true, finish: 'MALFORMED_FUNCTION_CALL' });
  });
});

describe('gateway mapping', () => {
  it('sends no provider object for an empty policy and only the price caps that are set', () => {
    expect(providerObject({})).toBeNull();
    expect(providerObject({ maxCompletionPriceUsdPerMillion: 0 })).toEqual({ max_price: { completion: 0 } });
  });

  it('refuses a stored routing policy that does not validate', () => {
    expect(thrown(() => buildGatewayRequest(request('gateway', { routing: { sort: 'random' } }))).errorCode).toBe('invalid_model_settings');
  });

  it('an error body on a 200 answer is an upstream failure', () => {
    const error = thrown(() => parseGatewayResponse({ error: { code: 429, message: 'upstream rate limited' } }, request('gateway')));
    expect({ code: error.errorCode, retryable: error.retryable }).toEqual({ code: 'provider_rate_limited', retryable: true });
  });
});

describe('adapterFor', () => {
  it('refuses an unknown provider type', () => {
    expect(() => adapterFor('sandbox_vendor' as ProviderType)).toThrow(/No model adapter/);
  });
});
