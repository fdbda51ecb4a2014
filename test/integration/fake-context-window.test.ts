import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { invokeModel, ModelInvocationError, type ModelRequest, type ProviderType } from '../../adapters/models/index.ts';
import { countFakeTokens, startFakeModelServers, type FakeModelServer, type FakeModelServers } from '../fixtures/model-vendors/chat-server.ts';

// The fake vendors' context window: past it each answers its vendor's real overflow error (and
// consumes no script step), which the adapter maps to provider_context_overflow; under it a
// reply reports the counted input as its usage.

const TYPES: ProviderType[] = ['vendor_a', 'vendor_b', 'vendor_c', 'gateway'];
const MODELS: Record<ProviderType, string> = {
  vendor_a: 'gpt-5.2',
  vendor_b: 'claude-opus-4-6',
  vendor_c: 'gemini-3-pro-preview',
  gateway: 'anthropic/claude-sonnet-4.6',
};
const WINDOW = 500;

let fakes: FakeModelServers;
beforeAll(async () => {
  fakes = await startFakeModelServers();
});
afterAll(async () => {
  await fakes?.close();
});
beforeEach(() => {
  for (const type of TYPES) fakes[type].reset();
});

function request(type: ProviderType, text: string): ModelRequest {
  const fake = fakes[type];
  return {
    providerType: type,
    baseUrl: fake.baseUrl,
    apiKey: fake.apiKey,
    model: MODELS[type],
    settings: null,
    routing: {},
    systemPrompt: 'You are terse.',
    messages: [{ role: 'user', text }],
    tools: [],
  };
}

/** The vendor's real overflow body for `count` input tokens against `window`. */
function overflowBody(type: ProviderType, count: number, window: number): unknown {
  switch (type) {
    case 'vendor_a':
      return {
        error: {
          message: 'Your input exceeds the context window of this model. Please adjust your input and try again.',
          type: 'invalid_request_error',
          param: 'input',
          code: 'context_length_exceeded',
        },
      };
    case 'vendor_b':
      return { type: 'error', error: { type: 'invalid_request_error', message: `prompt is too long: ${count} tokens > ${window} maximum` } };
    case 'vendor_c':
      return {
        error: { code: 400, message: `The input token count (${count}) exceeds the maximum number of tokens allowed (${window}).`, status: 'INVALID_ARGUMENT' },
      };
    case 'gateway':
      return {
        error: {
          message: `This endpoint's maximum context length is ${window} tokens. However, you requested about ${count} tokens (${count} of text input, 0 in the output). Please reduce the length of either one, or use the "middle-out" transform to compress your prompt automatically.`,
          code: 400,
        },
      };
  }
}

/** The request the adapter sent, replayed by hand: the fake's raw answer to it. */
async function rawAnswer(fake: FakeModelServer) {
  const sent = fake.requests.at(-1)!;
  const origin = new URL(fake.baseUrl).origin;
  const headers = Object.fromEntries(
    ['authorization', 'x-api-key', 'anthropic-version', 'x-goog-api-key'].flatMap((name) => {
      const value = sent.headers[name];
      return typeof value === 'string' ? [[name, value]] : [];
    }),
  );
  const response = await fetch(`${origin}${sent.path}${sent.query}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(sent.body),
  });
  return { status: response.status, body: (await response.json()) as unknown };
}

describe.each(TYPES)('%s fake with a context window', (type) => {
  const fake = () => fakes[type];

  it("refuses input past the window with the vendor's own 400, consuming no step; the adapter maps it to provider_context_overflow", async () => {
    fake().contextWindow = WINDOW;
    fake().reply({ text: 'kept for the next request' });
    const error = await invokeModel(request(type, 'x'.repeat(4 * WINDOW))).then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ModelInvocationError);
    const count = countFakeTokens(type, fake().requests.at(-1)!.body);
    expect(count).toBeGreaterThan(WINDOW);
    const failure = error as ModelInvocationError;
    expect({ code: failure.errorCode, retryable: failure.retryable, status: failure.httpStatus }).toEqual({
      code: 'provider_context_overflow',
      retryable: false,
      status: 400,
    });
    // The sizes the vendor names are in the message (OpenAI's Responses answer names none).
    if (type !== 'vendor_a') expect(failure.message).toContain(String(count));
    expect(fake().pending()).toBe(1);

    // Exactly the vendor's answer, byte for byte the shape.
    const raw = await rawAnswer(fake());
    expect(raw).toEqual({ status: 400, body: overflowBody(type, count, WINDOW) });
    expect(fake().pending()).toBe(1);
  });

  it('under the window the step answers, reporting the counted input as its usage unless the script names it', async () => {
    fake().contextWindow = WINDOW;
    fake()
      .reply({ text: 'counted' })
      .reply({ text: 'cached', usage: { cacheReadTokens: 20 } })
      .reply({ text: 'scripted', usage: { inputTokens: 7 } });
    const counted = await invokeModel(request(type, 'short question'));
    const count = countFakeTokens(type, fake().requests.at(-1)!.body);
    expect(count).toBeLessThanOrEqual(WINDOW);
    expect(counted).toMatchObject({ text: 'counted', usage: { inputTokens: count } });
    // Cached tokens are a part of the counted input (Anthropic's input_tokens is split to match).
    expect((await invokeModel(request(type, 'short question'))).usage).toMatchObject({ inputTokens: count, cacheReadTokens: 20 });
    expect((await invokeModel(request(type, 'short question'))).usage.inputTokens).toBe(7);
  });

  it('has no window by default, and reset() restores none', async () => {
    expect(fake().contextWindow).toBeNull();
    fake().contextWindow = 10;
    fake().reset();
    expect(fake().contextWindow).toBeNull();
    const result = await invokeModel(request(type, 'x'.repeat(40_000)));
    expect(result.text).toMatch(/^echo: x+$/);
    expect(result.usage.inputTokens).toBe(12);
  });
});

describe('countFakeTokens', () => {
  it('is a quarter of the JSON length of the input fields, rounded up, whatever else the body holds', () => {
    const input = { instructions: 'Be terse.', tools: [], input: [{ type: 'message', role: 'user', content: 'hi' }] };
    expect(countFakeTokens('vendor_a', { model: 'gpt-5.2', stream: true, ...input, store: false })).toBe(Math.ceil(JSON.stringify(input).length / 4));
    expect(countFakeTokens('vendor_b', { model: 'm', max_tokens: 100, messages: [] })).toBe(Math.ceil('{"messages":[]}'.length / 4));
    expect(countFakeTokens('vendor_c', { contents: [], generationConfig: { responseMimeType: 'text/plain' } })).toBe(Math.ceil('{"contents":[]}'.length / 4));
    expect(countFakeTokens('gateway', { model: 'm', messages: [{ role: 'system', content: 'x' }], provider: { sort: 'price' } })).toBe(
      Math.ceil('{"messages":[{"role":"system","content":"x"}]}'.length / 4),
    );
  });
});
