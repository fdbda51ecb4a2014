import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseGatewayResponse } from '../../adapters/models/gateway/chat.ts';
import {
  invokeModel,
  ModelInvocationError,
  type ModelRequest,
  type ModelResult,
  type ModelStreamEvent,
  type ProviderType,
} from '../../adapters/models/index.ts';
import { parseVendorAResponse } from '../../adapters/models/vendor-a/chat.ts';
import { parseVendorBResponse } from '../../adapters/models/vendor-b/chat.ts';
import { parseVendorCResponse } from '../../adapters/models/vendor-c/chat.ts';
import { closedPortUrl } from '../fixtures/model-vendors/catalog-server.ts';
import type { Protocol } from '../fixtures/model-vendors/chat-protocol.ts';
import { startFakeModelServers, type FakeModelServer, type FakeModelServers, type ScriptedReply } from '../fixtures/model-vendors/chat-server.ts';
import { gatewayProtocol } from '../fixtures/model-vendors/gateway/chat.ts';
import { vendorAProtocol } from '../fixtures/model-vendors/vendor-a/chat.ts';
import { vendorBProtocol } from '../fixtures/model-vendors/vendor-b/chat.ts';
import { vendorCProtocol } from '../fixtures/model-vendors/vendor-c/chat.ts';

// Model adapters against the fake servers speaking each vendor's wire protocol.

const MODELS: Record<ProviderType, string> = {
  vendor_a: 'gpt-5.2',
  vendor_b: 'claude-opus-4-6',
  vendor_c: 'gemini-3-pro-preview',
  gateway: 'anthropic/claude-sonnet-4.6',
};
const SETTINGS: Record<ProviderType, Record<string, unknown> | null> = {
  vendor_a: { textFormat: 'text', mode: 'standard', effort: 'high', verbosity: 'low', summary: 'detailed' },
  vendor_b: { thinking: 'adaptive', maxTokens: 32000, effort: 'max' },
  vendor_c: { textFormat: 'text', effort: 'low' },
  gateway: null,
};
const TOOL = {
  name: 'get_weather',
  description: 'Weather for a city',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
};
const TYPES: ProviderType[] = ['vendor_a', 'vendor_b', 'vendor_c', 'gateway'];

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

function request(type: ProviderType, overrides: Partial<ModelRequest> = {}): ModelRequest {
  const fake = fakes[type];
  return {
    providerType: type,
    baseUrl: fake.baseUrl,
    apiKey: fake.apiKey,
    model: MODELS[type],
    settings: SETTINGS[type],
    routing: {},
    systemPrompt: 'You are terse.',
    messages: [{ role: 'user', text: 'Weather in Oslo?' }],
    tools: [TOOL],
    ...overrides,
  };
}

const bodyOf = (fake: FakeModelServer, index = -1) => fake.requests.at(index)?.body as any;

async function failure(promise: Promise<ModelResult>): Promise<ModelInvocationError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ModelInvocationError);
  return error as ModelInvocationError;
}

describe.each(TYPES)('%s adapter', (type) => {
  it('returns a text reply with usage and the natural finish reason', async () => {
    fakes[type].reply({ text: 'Sunny.', usage: { inputTokens: 100, outputTokens: 20 } });
    const result = await invokeModel(request(type));
    expect(result).toMatchObject({ text: 'Sunny.', toolCalls: [], finishReason: 'stop', thinking: null });
    expect(result.usage).toEqual({ inputTokens: 100, outputTokens: 20, cacheReadTokens: 0, cacheWriteTokens: 0 });
    expect(result.providerFinishReason).toBeTruthy();
  });

  it('reports zero usage when the vendor reports none', async () => {
    fakes[type].reply({ text: 'ok', usage: null });
    const result = await invokeModel(request(type));
    expect(result.usage).toEqual({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 });
  });

  it('refuses a result no column can store (a lone surrogate, arguments nested past the limit) as a retryable invalid response', async () => {
    // An emoji split across stream chunks is whole again in the result: it passes.
    fakes[type].reply({ text: 'Sun 😀😀 shine', chunkSize: 1 });
    expect((await invokeModel(request(type))).text).toBe('Sun 😀😀 shine');
    fakes[type].reply({ text: 'Sunny \ud800 today' });
    const lone = await failure(invokeModel(request(type)));
    expect({ code: lone.errorCode, retryable: lone.retryable }).toEqual({ code: 'provider_invalid_response', retryable: true });
    expect(lone.message).toMatch(/cannot be stored: text holds text that is not well-formed Unicode/);
    // String-argument protocols take raw text (5,000 levels); the others an object (JSON.stringify in the fake recurses).
    const deep =
      type === 'vendor_b' || type === 'vendor_c'
        ? { arguments: JSON.parse(`${'{"a":'.repeat(200)}1${'}'.repeat(200)}`) }
        : { argumentsText: `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}` };
    fakes[type].reply({ toolCalls: [{ id: 'call_deep', name: 'get_weather', ...deep }] });
    const nested = await failure(invokeModel(request(type)));
    expect({ code: nested.errorCode, retryable: nested.retryable }).toEqual({ code: 'provider_invalid_response', retryable: true });
    expect(nested.message).toMatch(/toolCalls\.0\.arguments nests deeper than 100 levels/);
  });

  it('takes a finish reason named like an Object.prototype member as an unknown one', async () => {
    // vendor_a's finish value is its response status, which has its own rules.
    if (type === 'vendor_a') return;
    for (const finishReason of ['constructor', '__proto__', 'toString']) {
      fakes[type].reply({ text: 'ok', finishReason });
      expect((await invokeModel(request(type))).finishReason).toBe('other');
    }
  });

  it('keeps unparseable tool arguments as raw text', async () => {
    // Only the string-argument protocols can carry malformed JSON.
    if (type === 'vendor_b' || type === 'vendor_c') return;
    fakes[type].reply({ toolCalls: [{ id: 'call_bad', name: 'get_weather', argumentsText: '{"city": "Os' }] });
    const result = await invokeModel(request(type));
    expect(result.toolCalls[0]).toEqual({ id: 'call_bad', name: 'get_weather', arguments: '{"city": "Os', argumentsText: '{"city": "Os' });
  });

  describe('errors', () => {
    const cases: Array<{ name: string; script: (fake: FakeModelServer) => void; code: string; retryable: boolean; status: number | null }> = [
      { name: '429', script: (fake) => fake.fail({ status: 429, message: 'Slow down' }), code: 'provider_rate_limited', retryable: true, status: 429 },
      { name: '500', script: (fake) => fake.fail({ status: 500, message: 'boom' }), code: 'provider_server_error', retryable: true, status: 500 },
      { name: '503', script: (fake) => fake.fail({ status: 503, message: 'unavailable' }), code: 'provider_server_error', retryable: true, status: 503 },
      {
        name: '400 schema rejection',
        script: (fake) => fake.fail({ status: 400, message: "Invalid schema for function 'get_weather': 'additionalProperties' is not permitted." }),
        code: 'provider_rejected_request',
        retryable: false,
        status: 400,
      },
      {
        name: 'malformed JSON',
        script: (fake) => fake.raw({ body: '{"id": "resp_1", "output": [' }),
        code: 'provider_invalid_response',
        retryable: true,
        status: 200,
      },
      {
        name: 'an HTML error page',
        script: (fake) => fake.raw({ status: 502, body: '<html>Bad gateway</html>', contentType: 'text/html' }),
        code: 'provider_server_error',
        retryable: true,
        status: 502,
      },
    ];
    it.each(cases)('$name → $code', async ({ script, code, retryable, status }) => {
      script(fakes[type]);
      const error = await failure(invokeModel(request(type)));
      expect({ code: error.errorCode, retryable: error.retryable, status: error.httpStatus }).toEqual({ code, retryable, status });
      expect(error.message.length).toBeLessThan(700);
    });

    it('a 400 names the vendor message, bounded to 500 characters', async () => {
      fakes[type].fail({ status: 400, message: `tools.0: unsupported schema ${'x'.repeat(2000)}` });
      const error = await failure(invokeModel(request(type)));
      expect(error.message).toContain('tools.0: unsupported schema');
      expect(error.message.length).toBeLessThanOrEqual(600);
    });

    it('a wrong key → provider_rejected_credential, and the key never appears', async () => {
      const apiKey = `${fakes[type].apiKey}-WRONG-SECRET-123`;
      const error = await failure(invokeModel(request(type, { apiKey })));
      expect(error.errorCode).toBe('provider_rejected_credential');
      expect(error.retryable).toBe(false);
      expect(JSON.stringify({ message: error.message, stack: error.stack })).not.toContain('WRONG-SECRET');
    });

    it('a vendor echoing the key in a 400 body has it redacted', async () => {
      const key = fakes[type].apiKey;
      fakes[type].fail({ status: 400, message: `bad request for key ${key}` });
      const error = await failure(invokeModel(request(type)));
      expect(error.message).not.toContain(key);
      expect(error.message).toContain('[redacted]');
    });

    it('a reply slower than the deadline → provider_timeout (retryable)', async () => {
      fakes[type].reply({ text: 'late', delayMs: 2000 });
      const error = await failure(invokeModel(request(type, { signal: AbortSignal.timeout(100) })));
      expect({ code: error.errorCode, retryable: error.retryable }).toEqual({ code: 'provider_timeout', retryable: true });
    });

    it('a cancelled call → provider_call_cancelled (not retryable)', async () => {
      fakes[type].reply({ text: 'late', delayMs: 2000 });
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 50);
      const error = await failure(invokeModel(request(type, { signal: controller.signal })));
      expect({ code: error.errorCode, retryable: error.retryable }).toEqual({ code: 'provider_call_cancelled', retryable: false });
    });

    it('an unreachable endpoint → provider_unreachable (retryable)', async () => {
      const error = await failure(invokeModel(request(type, { baseUrl: await closedPortUrl() })));
      expect({ code: error.errorCode, retryable: error.retryable }).toEqual({ code: 'provider_unreachable', retryable: true });
    });
  });
});

describe('vendor_a (OpenAI Responses)', () => {
  const fake = () => fakes.vendor_a;

  it('sends the request shape, settings and auth the Responses API expects', async () => {
    await invokeModel(request('vendor_a'));
    const sent = fake().requests[0];
    expect(sent?.path).toBe('/v1/responses');
    expect(sent?.headers.authorization).toBe(`Bearer ${fake().apiKey}`);
    expect(sent?.body).toEqual({
      model: 'gpt-5.2',
      stream: true,
      instructions: 'You are terse.',
      input: [{ type: 'message', role: 'user', content: 'Weather in Oslo?' }],
      tools: [{ type: 'function', name: 'get_weather', description: 'Weather for a city', parameters: TOOL.inputSchema, strict: false }],
      store: false,
      reasoning: { effort: 'high', summary: 'detailed' },
      include: ['reasoning.encrypted_content'],
      text: { format: { type: 'text' }, verbosity: 'low' },
    });
  });

  it('maps mode pro to the -pro model and effort none to reasoning off', async () => {
    await invokeModel(request('vendor_a', { settings: { ...SETTINGS.vendor_a, mode: 'pro', effort: 'none' } }));
    expect(bodyOf(fake())).toMatchObject({ model: 'gpt-5.2-pro', reasoning: { effort: 'none' } });
    expect(bodyOf(fake()).reasoning.summary).toBeUndefined();
  });

  it('runs a tool call round trip with function_call and function_call_output items', async () => {
    fake().reply({
      thinking: 'Need the weather tool.',
      toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: { city: 'Oslo' } }],
      usage: { inputTokens: 50, outputTokens: 10, cacheReadTokens: 32 },
    });
    const first = await invokeModel(request('vendor_a'));
    expect(first).toMatchObject({
      finishReason: 'tool_calls',
      providerFinishReason: 'completed',
      thinking: 'Need the weather tool.',
      toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: { city: 'Oslo' }, argumentsText: '{"city":"Oslo"}' }],
      usage: { inputTokens: 50, outputTokens: 10, cacheReadTokens: 32, cacheWriteTokens: 0 },
    });
    expect(first.replay).toEqual({
      providerType: 'vendor_a',
      model: 'gpt-5.2',
      items: [{ type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Need the weather tool.' }], encrypted_content: 'enc_1' }],
    });

    fake().reply({ text: 'Sunny in Oslo.' });
    const second = await invokeModel(
      request('vendor_a', {
        messages: [
          { role: 'user', text: 'Weather in Oslo?' },
          { role: 'assistant', text: '', toolCalls: first.toolCalls, replay: first.replay ?? null },
          { role: 'tool', toolCallId: 'call_1', toolName: 'get_weather', result: { temp: 21 }, isError: false },
        ],
      }),
    );
    expect(second.text).toBe('Sunny in Oslo.');
    expect(bodyOf(fake()).input).toEqual([
      { type: 'message', role: 'user', content: 'Weather in Oslo?' },
      { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Need the weather tool.' }], encrypted_content: 'enc_1' },
      { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Oslo"}' },
      { type: 'function_call_output', call_id: 'call_1', output: '{"temp":21}' },
    ]);
  });

  it('maps incomplete statuses and failed responses', async () => {
    fake().reply({ text: 'cut', finishReason: 'incomplete:max_output_tokens' });
    expect(await invokeModel(request('vendor_a'))).toMatchObject({ finishReason: 'length', providerFinishReason: 'incomplete:max_output_tokens' });
    fake().reply({ text: '', finishReason: 'incomplete:content_filter' });
    expect((await invokeModel(request('vendor_a'))).finishReason).toBe('content_filter');
  });

  it('sends the session as prompt_cache_key when given, and none without it', async () => {
    await invokeModel(request('vendor_a', { promptCacheKey: '7d0c6c1e-3b1f-4f47-9a51-0f2b8f0e2a11' }));
    await invokeModel(request('vendor_a'));
    expect(bodyOf(fake(), 0).prompt_cache_key).toBe('7d0c6c1e-3b1f-4f47-9a51-0f2b8f0e2a11');
    expect('prompt_cache_key' in bodyOf(fake(), 1)).toBe(false);
  });

  it('an exhausted quota (429 insufficient_quota) is not retryable', async () => {
    fake().fail({ status: 429, code: 'insufficient_quota', message: 'You exceeded your current quota' });
    const error = await failure(invokeModel(request('vendor_a')));
    expect({ code: error.errorCode, retryable: error.retryable }).toEqual({ code: 'provider_quota_exhausted', retryable: false });
  });
});

describe('vendor_b (Anthropic Messages)', () => {
  const fake = () => fakes.vendor_b;

  it('sends the request shape, settings and headers the Messages API expects', async () => {
    await invokeModel(request('vendor_b'));
    const sent = fake().requests[0];
    expect(sent?.path).toBe('/v1/messages');
    expect(sent?.headers['x-api-key']).toBe(fake().apiKey);
    expect(sent?.headers['anthropic-version']).toBe('2023-06-01');
    expect(sent?.body).toEqual({
      model: 'claude-opus-4-6',
      max_tokens: 32000,
      stream: true,
      // Cache breakpoints: the system prompt (caching the tools with it) and the newest turn.
      system: [{ type: 'text', text: 'You are terse.', cache_control: { type: 'ephemeral' } }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Weather in Oslo?', cache_control: { type: 'ephemeral' } }] }],
      tools: [{ name: 'get_weather', description: 'Weather for a city', input_schema: TOOL.inputSchema }],
      thinking: { type: 'adaptive' },
      output_config: { effort: 'max' },
    });
  });

  it('thinking disabled sends no thinking but keeps the effort', async () => {
    await invokeModel(request('vendor_b', { settings: { thinking: 'disabled', maxTokens: 1000, effort: 'low' } }));
    expect(bodyOf(fake()).thinking).toBeUndefined();
    expect(bodyOf(fake())).toMatchObject({ max_tokens: 1000, output_config: { effort: 'low' } });
  });

  it('runs a tool call round trip with tool_use and merged tool_result blocks', async () => {
    fake().reply({
      thinking: 'Two cities.',
      text: 'Checking.',
      toolCalls: [
        { id: 'toolu_1', name: 'get_weather', arguments: { city: 'Oslo' } },
        { id: 'toolu_2', name: 'get_weather', arguments: { city: 'Bergen' } },
      ],
      usage: { inputTokens: 10, outputTokens: 30, cacheReadTokens: 900, cacheWriteTokens: 100 },
    });
    const first = await invokeModel(request('vendor_b'));
    expect(first).toMatchObject({ text: 'Checking.', finishReason: 'tool_calls', providerFinishReason: 'tool_use', thinking: 'Two cities.' });
    expect(first.usage).toEqual({ inputTokens: 1010, outputTokens: 30, cacheReadTokens: 900, cacheWriteTokens: 100 });
    expect(first.toolCalls.map((call) => call.id)).toEqual(['toolu_1', 'toolu_2']);

    await invokeModel(
      request('vendor_b', {
        messages: [
          { role: 'user', text: 'Weather in Oslo and Bergen?' },
          { role: 'assistant', text: first.text, toolCalls: first.toolCalls, replay: first.replay ?? null },
          { role: 'tool', toolCallId: 'toolu_1', toolName: 'get_weather', result: { temp: 21 }, isError: false },
          { role: 'tool', toolCallId: 'toolu_2', toolName: 'get_weather', result: 'city not found', isError: true },
          { role: 'user', text: 'Thanks' },
        ],
      }),
    );
    expect(bodyOf(fake()).messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Weather in Oslo and Bergen?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'Two cities.', signature: 'sig_1' },
          { type: 'text', text: 'Checking.' },
          { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Oslo' } },
          { type: 'tool_use', id: 'toolu_2', name: 'get_weather', input: { city: 'Bergen' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: '{"temp":21}' },
          { type: 'tool_result', tool_use_id: 'toolu_2', content: 'city not found', is_error: true },
          { type: 'text', text: 'Thanks', cache_control: { type: 'ephemeral' } },
        ],
      },
    ]);
  });

  it('maps stop reasons', async () => {
    for (const [stop, finish] of [
      ['max_tokens', 'length'],
      ['refusal', 'content_filter'],
      ['pause_turn', 'other'],
    ] as const) {
      fake().reply({ text: 'x', finishReason: stop });
      expect(await invokeModel(request('vendor_b'))).toMatchObject({ finishReason: finish, providerFinishReason: stop });
    }
  });

  it('marks at most four cache breakpoints: system, the summary, the newest turn (tool results)', async () => {
    const ephemeral = { type: 'ephemeral' };
    await invokeModel(
      request('vendor_b', {
        messages: [
          { role: 'user', text: 'Summary: the user asked about Oslo twice.', summary: true },
          { role: 'assistant', text: 'Noted.', toolCalls: [] },
          { role: 'user', text: 'And Bergen?' },
          {
            role: 'assistant',
            text: '',
            toolCalls: [{ id: 'toolu_1', name: 'get_weather', arguments: { city: 'Bergen' }, argumentsText: '{"city":"Bergen"}' }],
          },
          { role: 'tool', toolCallId: 'toolu_1', toolName: 'get_weather', result: { temp: 12 }, isError: false },
        ],
      }),
    );
    const body = bodyOf(fake());
    expect(body.system).toEqual([{ type: 'text', text: 'You are terse.', cache_control: ephemeral }]);
    expect(body.tools[0].cache_control).toBeUndefined();
    expect(body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Summary: the user asked about Oslo twice.', cache_control: ephemeral }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Noted.' }] },
      { role: 'user', content: [{ type: 'text', text: 'And Bergen?' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Bergen' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '{"temp":12}', cache_control: ephemeral }] },
    ]);
    expect(JSON.stringify(body).split('cache_control').length - 1).toBe(3);
  });

  it('529 overloaded is a retryable server error', async () => {
    fake().fail({ status: 529, message: 'Overloaded' });
    const error = await failure(invokeModel(request('vendor_b')));
    expect({ code: error.errorCode, retryable: error.retryable }).toEqual({ code: 'provider_server_error', retryable: true });
  });
});

describe('vendor_c (Gemini streamGenerateContent)', () => {
  const fake = () => fakes.vendor_c;

  it('sends the request shape, settings and key header the Gemini API expects', async () => {
    await invokeModel(request('vendor_c'));
    const sent = fake().requests[0];
    expect(sent?.path).toBe('/v1beta/models/gemini-3-pro-preview:streamGenerateContent');
    expect(sent?.query).toBe('?alt=sse');
    expect(sent?.headers['x-goog-api-key']).toBe(fake().apiKey);
    expect(sent?.body).toEqual({
      systemInstruction: { parts: [{ text: 'You are terse.' }] },
      contents: [{ role: 'user', parts: [{ text: 'Weather in Oslo?' }] }],
      tools: [{ functionDeclarations: [{ name: 'get_weather', description: 'Weather for a city', parametersJsonSchema: TOOL.inputSchema }] }],
      generationConfig: { responseMimeType: 'text/plain', thinkingConfig: { thinkingLevel: 'low', includeThoughts: true } },
    });
  });

  it('Gemini 2.5 gets a thinking budget instead of a level', async () => {
    await invokeModel(request('vendor_c', { model: 'gemini-2.5-flash', settings: { effort: 'medium' } }));
    expect(bodyOf(fake()).generationConfig.thinkingConfig).toEqual({ thinkingBudget: 8192, includeThoughts: true });
  });

  it('runs a tool call round trip with synthesized ids, signatures and functionResponse parts', async () => {
    fake().reply({
      thinking: 'Use the tool.',
      toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }],
      usage: { inputTokens: 400, outputTokens: 15, reasoningTokens: 25, cacheReadTokens: 300 },
    });
    const first = await invokeModel(request('vendor_c'));
    expect(first).toMatchObject({ finishReason: 'tool_calls', providerFinishReason: 'STOP', thinking: 'Use the tool.' });
    expect(first.usage).toEqual({ inputTokens: 400, outputTokens: 40, cacheReadTokens: 300, cacheWriteTokens: 0 });
    const call = first.toolCalls[0];
    expect(call).toMatchObject({ name: 'get_weather', arguments: { city: 'Oslo' }, argumentsText: '{"city":"Oslo"}' });
    expect(call?.id).toMatch(/^gcall_[0-9a-f]{24}$/);

    fake().reply({ text: 'Sunny.' });
    await invokeModel(
      request('vendor_c', {
        messages: [
          { role: 'user', text: 'Weather in Oslo?' },
          { role: 'assistant', text: '', toolCalls: first.toolCalls, replay: first.replay ?? null },
          { role: 'tool', toolCallId: call?.id ?? '', toolName: 'get_weather', result: { temp: 21 }, isError: false },
        ],
      }),
    );
    expect(bodyOf(fake()).contents).toEqual([
      { role: 'user', parts: [{ text: 'Weather in Oslo?' }] },
      // The model turn goes back verbatim, thought signature included.
      {
        role: 'model',
        parts: [
          { text: 'Use the tool.', thought: true },
          { functionCall: { name: 'get_weather', args: { city: 'Oslo' } }, thoughtSignature: 'sig_1' },
        ],
      },
      { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { output: { temp: 21 } } } }] },
    ]);
  });

  it('a replayed call without a stored signature carries the documented placeholder', async () => {
    await invokeModel(
      request('vendor_c', {
        messages: [
          { role: 'user', text: 'Weather?' },
          {
            role: 'assistant',
            text: '',
            toolCalls: [{ id: 'gcall_000000000000000000000000', name: 'get_weather', arguments: { city: 'Oslo' }, argumentsText: '{"city":"Oslo"}' }],
          },
          { role: 'tool', toolCallId: 'gcall_000000000000000000000000', toolName: 'get_weather', result: 'boom', isError: true },
        ],
      }),
    );
    expect(bodyOf(fake()).contents.slice(1)).toEqual([
      { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Oslo' } }, thoughtSignature: 'skip_thought_signature_validator' }] },
      { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { error: 'boom' } } }] },
    ]);
  });

  it('reads a JSON array of chunks (streamGenerateContent without alt=sse) like the stream', async () => {
    const chunk = (parts: unknown[], extra: Record<string, unknown> = {}) => ({
      candidates: [{ content: { role: 'model', parts }, index: 0, ...extra }],
      responseId: 'r1',
    });
    fake().raw({ body: JSON.stringify([chunk([{ text: 'Sun' }]), chunk([{ text: 'ny.' }], { finishReason: 'STOP' })]) });
    const { result, texts } = await streamed('vendor_c');
    expect(result).toMatchObject({ text: 'Sunny.', finishReason: 'stop' });
    expect(texts).toEqual(['Sun', 'ny.']);
  });

  it('maps finish reasons and a blocked prompt', async () => {
    fake().reply({ text: 'x', finishReason: 'MAX_TOKENS' });
    expect((await invokeModel(request('vendor_c'))).finishReason).toBe('length');
    fake().reply({ text: '', finishReason: 'SAFETY' });
    expect((await invokeModel(request('vendor_c'))).finishReason).toBe('content_filter');
    const blocked = JSON.stringify({ promptFeedback: { blockReason: 'PROHIBITED_CONTENT' }, usageMetadata: { promptTokenCount: 9 } });
    // As the stream's only chunk, and as a plain JSON answer (a proxy that does not stream).
    for (const raw of [{ body: `data: ${blocked}\r\n\r\n`, contentType: 'text/event-stream' }, { body: blocked }]) {
      fake().raw(raw);
      const error = await failure(invokeModel(request('vendor_c')));
      expect({ code: error.errorCode, retryable: error.retryable, finish: error.providerFinishReason }).toEqual({
        code: 'provider_refused_content',
        retryable: false,
        finish: 'PROHIBITED_CONTENT',
      });
    }
  });
});

describe('gateway (OpenRouter chat completions)', () => {
  const fake = () => fakes.gateway;

  it('sends the chat completions shape and maps the routing policy to provider', async () => {
    const routing = {
      allowFallbacks: false,
      requireParameters: true,
      dataCollection: 'deny',
      zeroDataRetention: true,
      providerOrder: ['anthropic', 'amazon-bedrock'],
      providerAllowlist: ['anthropic', 'amazon-bedrock', 'google-vertex'],
      providerDenylist: ['deepinfra/fp8'],
      sort: 'throughput',
      maxPromptPriceUsdPerMillion: 3,
      maxCompletionPriceUsdPerMillion: 15,
    };
    await invokeModel(request('gateway', { routing }));
    const sent = fake().requests[0];
    expect(sent?.path).toBe('/api/v1/chat/completions');
    expect(sent?.headers.authorization).toBe(`Bearer ${fake().apiKey}`);
    expect(sent?.body).toEqual({
      model: 'anthropic/claude-sonnet-4.6',
      stream: true,
      stream_options: { include_usage: true },
      // An anthropic/… model: cache_control on the system prompt and the newest user message.
      messages: [
        { role: 'system', content: [{ type: 'text', text: 'You are terse.', cache_control: { type: 'ephemeral' } }] },
        { role: 'user', content: [{ type: 'text', text: 'Weather in Oslo?', cache_control: { type: 'ephemeral' } }] },
      ],
      tools: [{ type: 'function', function: { name: 'get_weather', description: 'Weather for a city', parameters: TOOL.inputSchema } }],
      provider: {
        allow_fallbacks: false,
        require_parameters: true,
        data_collection: 'deny',
        zdr: true,
        order: ['anthropic', 'amazon-bedrock'],
        only: ['anthropic', 'amazon-bedrock', 'google-vertex'],
        ignore: ['deepinfra/fp8'],
        sort: 'throughput',
        max_price: { prompt: 3, completion: 15 },
      },
    });
  });

  it('a saved preset model goes through as @preset/<slug> without a provider object', async () => {
    await invokeModel(request('gateway', { model: '@preset/support-bot' }));
    expect(bodyOf(fake()).model).toBe('@preset/support-bot');
    expect(bodyOf(fake()).provider).toBeUndefined();
  });

  it('runs a tool call round trip with tool_calls and role tool messages', async () => {
    fake().reply({
      thinking: 'Call the tool.',
      toolCalls: [{ id: 'call_9', name: 'get_weather', arguments: { city: 'Oslo' } }],
      usage: { inputTokens: 70, outputTokens: 9, cacheReadTokens: 64, cacheWriteTokens: 6 },
    });
    const first = await invokeModel(request('gateway'));
    expect(first).toMatchObject({
      finishReason: 'tool_calls',
      thinking: 'Call the tool.',
      usage: { inputTokens: 70, outputTokens: 9, cacheReadTokens: 64, cacheWriteTokens: 6 },
    });
    await invokeModel(
      request('gateway', {
        messages: [
          { role: 'user', text: 'Weather in Oslo?' },
          { role: 'assistant', text: '', toolCalls: first.toolCalls },
          { role: 'tool', toolCallId: 'call_9', toolName: 'get_weather', result: { message: 'timeout' }, isError: true },
        ],
      }),
    );
    expect(bodyOf(fake()).messages.slice(1)).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Weather in Oslo?', cache_control: { type: 'ephemeral' } }] },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_9', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }] },
      { role: 'tool', tool_call_id: 'call_9', content: '{"error":{"message":"timeout"}}' },
    ]);
  });

  it('maps gateway-specific failures', async () => {
    fake().fail({ status: 402, message: 'Insufficient credits' });
    expect((await failure(invokeModel(request('gateway')))).errorCode).toBe('provider_quota_exhausted');
    fake().fail({ status: 403, message: 'Input flagged by moderation' });
    expect((await failure(invokeModel(request('gateway')))).errorCode).toBe('provider_refused_content');
    fake().reply({ text: '', finishReason: 'error' });
    const upstream = await failure(invokeModel(request('gateway')));
    expect({ code: upstream.errorCode, retryable: upstream.retryable, finish: upstream.providerFinishReason }).toEqual({
      code: 'provider_server_error',
      retryable: true,
      finish: 'error',
    });
  });

  it('finish_reason length and content_filter map through', async () => {
    fake().reply({ text: 'x', finishReason: 'length' });
    expect((await invokeModel(request('gateway'))).finishReason).toBe('length');
    fake().reply({ text: '', finishReason: 'content_filter' });
    expect((await invokeModel(request('gateway'))).finishReason).toBe('content_filter');
  });
});

describe.each(TYPES)('%s prompt cache usage', (type) => {
  it('the cache-read and cache-write figures the fake reports in the vendor fields land in usage', async () => {
    fakes[type].reply({ text: 'Cached.', usage: { inputTokens: 1000, outputTokens: 5, cacheReadTokens: 600, cacheWriteTokens: 300 } });
    const result = await invokeModel(request(type, { promptCacheKey: 'session-1' }));
    // OpenAI and Gemini report no cache writes; Anthropic's input_tokens leaves the cached ones out.
    const expected = {
      vendor_a: { inputTokens: 1000, outputTokens: 5, cacheReadTokens: 600, cacheWriteTokens: 0 },
      vendor_b: { inputTokens: 1900, outputTokens: 5, cacheReadTokens: 600, cacheWriteTokens: 300 },
      vendor_c: { inputTokens: 1000, outputTokens: 5, cacheReadTokens: 600, cacheWriteTokens: 0 },
      gateway: { inputTokens: 1000, outputTokens: 5, cacheReadTokens: 600, cacheWriteTokens: 300 },
    }[type];
    expect(result.usage).toEqual(expected);
  });
});

describe('fake servers', () => {
  it('answer the echo default reply and serve the model list on the same base URL', async () => {
    const result = await invokeModel(request('vendor_b', { messages: [{ role: 'user', text: 'ping' }] }));
    expect(result.text).toBe('echo: ping');
    const list = await fetch(`${fakes.vendor_b.baseUrl}/v1/models`, { headers: { 'x-api-key': fakes.vendor_b.apiKey, 'anthropic-version': '2023-06-01' } });
    expect(list.status).toBe(200);
    expect(fakes.env).toMatchObject({
      SVC_MODEL_BASE_URL_VENDOR_A: expect.stringMatching(/\/v1$/),
      SVC_MODEL_BASE_URL_VENDOR_C: expect.stringMatching(/\/v1beta$/),
    });
  });
});

// Every adapter streams: the fakes answer in each protocol's stream framing.

const PROTOCOLS: Record<ProviderType, Protocol> = { vendor_a: vendorAProtocol, vendor_b: vendorBProtocol, vendor_c: vendorCProtocol, gateway: gatewayProtocol };
const PARSERS: Record<ProviderType, (request: ModelRequest, body: unknown) => ModelResult> = {
  vendor_a: parseVendorAResponse,
  vendor_b: parseVendorBResponse,
  vendor_c: parseVendorCResponse,
  gateway: (request, body) => parseGatewayResponse(body, request),
};

/** Runs one call, recording what `onStream` reported. */
async function streamed(type: ProviderType, overrides: Partial<ModelRequest> = {}) {
  const texts: string[] = [];
  let chunks = 0;
  const onStream = (event: ModelStreamEvent) => (event.kind === 'text' ? texts.push(event.text) : (chunks += 1));
  const outcome = await invokeModel(request(type, { ...overrides, onStream })).then(
    (result) => ({ result, error: null }),
    (error: unknown) => ({ result: null, error: error as ModelInvocationError }),
  );
  return { ...outcome, texts, chunks };
}

describe.each(TYPES)('%s streaming', (type) => {
  const fake = () => fakes[type];

  it('asks for a stream, reports the text in several pieces that make the result text, and a chunk per event', async () => {
    fake().reply({ thinking: 'Think first.', text: 'The weather in Oslo is sunny and mild today.', chunkSize: 6 });
    const { result, texts, chunks } = await streamed(type);
    expect(result?.text).toBe('The weather in Oslo is sunny and mild today.');
    expect(texts.length).toBeGreaterThanOrEqual(5);
    expect(texts.join('')).toBe(result?.text);
    expect(chunks).toBeGreaterThan(texts.length);
    const sent = fake().requests[0]!;
    if (type === 'vendor_c') expect(`${sent.path}${sent.query}`).toMatch(/:streamGenerateContent\?alt=sse$/);
    else expect((sent.body as { stream?: unknown }).stream).toBe(true);
  });

  it('the streamed answer is exactly the non-streamed answer for the same reply', async () => {
    const replies: ScriptedReply[] = [
      { text: 'Sunny.' },
      {
        thinking: 'Two cities, two calls.',
        text: 'Checking both.',
        toolCalls: [
          { name: 'get_weather', arguments: { city: 'Oslo' } },
          { name: 'get_weather', arguments: { city: 'Bergen', days: [1, 2] } },
        ],
      },
      {
        toolCalls: [{ id: 'my_call', name: 'get_weather', arguments: { city: 'Tromsø' } }],
        usage: { inputTokens: 900, outputTokens: 30, cacheReadTokens: 800, cacheWriteTokens: 50, reasoningTokens: 9 },
      },
      { text: 'Emoji 🌞🌧️ and ünïcödé, split by code points: 日本語のテキスト。', chunkSize: 1 },
      { text: '', usage: null },
      {
        text: 'cut off',
        finishReason: type === 'vendor_a' ? 'incomplete:max_output_tokens' : type === 'vendor_b' ? 'max_tokens' : type === 'vendor_c' ? 'MAX_TOKENS' : 'length',
      },
      { text: 'x'.repeat(5000), chunkSize: 7 },
    ];
    for (const [index, reply] of replies.entries()) {
      fake().reply(reply);
      const { result, texts, error } = await streamed(type);
      expect(error).toBeNull();
      const expected = PARSERS[type](request(type), PROTOCOLS[type].reply(reply, { seq: index + 1, model: MODELS[type] }));
      expect(result).toEqual(expected);
      expect(texts.join('')).toBe(expected.text);
    }
  });

  it('an error event after some text → a retryable server error, and the retried attempt streams again from the start', async () => {
    fake().failMidStream({ text: 'The first attempt is cut off here.', afterChunks: 2 }).reply({ text: 'The second attempt.' });
    const first = await streamed(type);
    expect({ code: first.error?.errorCode, retryable: first.error?.retryable }).toEqual({ code: 'provider_server_error', retryable: true });
    expect(first.texts).toEqual(['The ', 'firs']);
    const second = await streamed(type);
    expect(second.result?.text).toBe('The second attempt.');
    expect(second.texts.join('')).toBe('The second attempt.');
  });

  it('an in-stream rate limit is retryable as provider_rate_limited', async () => {
    const streamError = {
      vendor_a: { code: 'rate_limit_exceeded' },
      vendor_b: { code: 'rate_limit_error' },
      vendor_c: { code: 'RESOURCE_EXHAUSTED', status: 429 },
      gateway: { status: 429 },
    }[type];
    fake().failMidStream({ text: 'partial', afterChunks: 1, streamError: { ...streamError, message: 'Slow down' } });
    const { error } = await streamed(type);
    expect({ code: error?.errorCode, retryable: error?.retryable }).toEqual({ code: 'provider_rate_limited', retryable: true });
  });

  it('a dropped connection is provider_unreachable; a stream that ends without its final event is provider_invalid_response', async () => {
    fake()
      .failMidStream({ text: 'dropped mid-answer', afterChunks: 1, failHow: 'drop' })
      .failMidStream({ text: 'ended mid-answer', afterChunks: 1, failHow: 'end' });
    const dropped = await streamed(type);
    expect({ code: dropped.error?.errorCode, retryable: dropped.error?.retryable }).toEqual({ code: 'provider_unreachable', retryable: true });
    const ended = await streamed(type);
    expect({ code: ended.error?.errorCode, retryable: ended.error?.retryable }).toEqual({ code: 'provider_invalid_response', retryable: true });
    expect(ended.texts).toEqual(['ende']);
  });

  it('a slow stream: chunkDelayMs spaces the chunks, and the signal aborts it mid-answer', async () => {
    fake().reply({ text: 'abcdefgh', chunkSize: 2, chunkDelayMs: 40 });
    const times: number[] = [];
    const started = Date.now();
    await invokeModel(request(type, { onStream: (event) => void (event.kind === 'text' && times.push(Date.now() - started)) }));
    expect(times).toHaveLength(4);
    expect(times.at(-1)! - times[0]!).toBeGreaterThanOrEqual(100);

    fake().reply({ text: 'A long answer that streams slowly.', chunkDelayMs: 100 });
    const controller = new AbortController();
    const texts: string[] = [];
    const cancelled = failure(
      invokeModel(
        request(type, { signal: controller.signal, onStream: (event) => void (event.kind === 'text' && texts.push(event.text) && controller.abort()) }),
      ),
    );
    const error = await cancelled;
    expect({ code: error.errorCode, retryable: error.retryable }).toEqual({ code: 'provider_call_cancelled', retryable: false });
    expect(texts).toEqual(['A lo']);

    fake().chunkDelayMs = 100;
    const timedOut = await failure(
      invokeModel(request(type, { signal: AbortSignal.timeout(250), messages: [{ role: 'user', text: 'a question long enough to take a while' }] })),
    );
    expect({ code: timedOut.errorCode, retryable: timedOut.retryable }).toEqual({ code: 'provider_timeout', retryable: true });
  });

  it('an onStream that throws aborts the call with its own exception', async () => {
    const gaveUp = new Error('the caller gave up');
    for (const kind of ['chunk', 'text'] as const) {
      // Thirteen chunks a second apart: the whole stream would take twelve seconds.
      fake().reply({ text: 'A long answer that streams slowly, in many chunks.', chunkDelayMs: 1_000 });
      const started = Date.now();
      const caught = await invokeModel(
        request(type, {
          onStream: (event) => {
            if (event.kind === kind) throw gaveUp;
          },
        }),
      ).catch((error: unknown) => error);
      expect(caught).toBe(gaveUp);
      // Aborted at the first chunk, not read to its end (the bound is the subject, half the stream).
      expect(Date.now() - started).toBeLessThan(6_000);
    }
  });
});

describe('fake servers stream only when asked', () => {
  it('a request without stream still gets one JSON answer', async () => {
    for (const type of TYPES) {
      const fake = fakes[type];
      fake.reply({ text: 'Plain.' });
      const path = { vendor_a: '/responses', vendor_b: '/v1/messages', vendor_c: '/models/gemini-3-pro-preview:generateContent', gateway: '/chat/completions' }[
        type
      ];
      const headers = {
        vendor_a: { authorization: `Bearer ${fake.apiKey}` },
        vendor_b: { 'x-api-key': fake.apiKey, 'anthropic-version': '2023-06-01' },
        vendor_c: { 'x-goog-api-key': fake.apiKey },
        gateway: { authorization: `Bearer ${fake.apiKey}` },
      }[type];
      const response = await fetch(`${fake.baseUrl}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ model: MODELS[type] }),
      });
      expect(response.headers.get('content-type')).toBe('application/json');
      expect(PARSERS[type](request(type), await response.json()).text).toBe('Plain.');
    }
  });
});
