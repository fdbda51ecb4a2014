import { describe, expect, it } from 'vitest';
import type { StreamEvent } from './chat-http.ts';
import { buildGatewayRequest, GatewayStream, parseGatewayResponse, providerObject } from './gateway/chat.ts';
import { adapterFor } from './index.ts';
import { decodeSse, SseDecoder, type SseEvent } from './sse.ts';
import { ModelInvocationError, type ModelRequest, type ModelResult, type ProviderType } from './types.ts';
import { buildVendorARequest, parseVendorAResponse, VendorAStream } from './vendor-a/chat.ts';
import { buildVendorBRequest, parseVendorBResponse, VendorBStream } from './vendor-b/chat.ts';
import { buildVendorCRequest, parseVendorCResponse, VendorCStream } from './vendor-c/chat.ts';

// Pure request/response mapping; the wire round trips live in test/integration/model-adapters.

function request(providerType: ProviderType, overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    providerType,
    baseUrl: 'http://unused',
    apiKey: 'k',
    model: 'm',
    settings: null,
    routing: {},
    systemPrompt: '',
    messages: [],
    tools: [],
    ...overrides,
  };
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
    expect(buildVendorARequest(request('vendor_a', { model: 'gpt-5.1' }))).toMatchObject({
      reasoning: { effort: 'medium', summary: 'auto' },
      text: { verbosity: 'medium' },
    });
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
    expect({ code: error.errorCode, retryable: error.retryable, usage: error.usage?.inputTokens }).toEqual({
      code: 'provider_server_error',
      retryable: true,
      usage: 5,
    });
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
      // The newest message's last block is the newest turn's cache breakpoint.
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'f', input: { arguments: '{"a":' }, cache_control: { type: 'ephemeral' } }] },
    ]);
    expect(body.system).toBeUndefined();
    expect(body.tools).toBeUndefined();
    expect(body).toMatchObject({ max_tokens: 20000, thinking: { type: 'adaptive' }, output_config: { effort: 'high' } });
  });
});

describe('vendor_c mapping', () => {
  it('maps effort onto levels (Gemini 3) and budgets (Gemini 2.5)', () => {
    const config = (model: string, effort: string) =>
      (buildVendorCRequest(request('vendor_c', { model, settings: { effort } })).generationConfig as any).thinkingConfig;
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
    const answer = {
      responseId: 'r1',
      candidates: [{ content: { parts: [{ functionCall: { name: 'f', args: {} } }, { functionCall: { name: 'g', args: {} } }] }, finishReason: 'STOP' }],
    };
    const ids = (messages: ModelRequest['messages']) => parseVendorCResponse(request('vendor_c', { messages }), answer).toolCalls.map((call) => call.id);
    const first = ids([{ role: 'user', text: 'a' }]);
    expect(first).toEqual(ids([{ role: 'user', text: 'a' }]));
    expect(new Set(first).size).toBe(2);
    expect(
      ids([
        { role: 'user', text: 'a' },
        { role: 'user', text: 'b' },
      ]),
    ).not.toEqual(first);
  });

  it('a malformed function call is a retryable invalid response', () => {
    const error = thrown(() =>
      parseVendorCResponse(request('vendor_c'), { candidates: [{ content: { parts: [] }, finishReason: 'MALFORMED_FUNCTION_CALL' }] }),
    );
    expect({ code: error.errorCode, retryable: error.retryable, finish: error.providerFinishReason }).toEqual({
      code: 'provider_invalid_response',
      retryable: true,
      finish: 'MALFORMED_FUNCTION_CALL',
    });
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

describe('prompt caching', () => {
  const TOOLS = [
    { name: 'a', description: 'A', inputSchema: { type: 'object' } },
    { name: 'b', description: 'B', inputSchema: { type: 'object' } },
  ];
  const thinking = { type: 'thinking', thinking: 'Plan.', signature: 'sig' };
  const replay = { providerType: 'vendor_b' as const, model: 'm', items: [thinking] };
  const call = (id: string) => ({ id, name: 'a', arguments: {}, argumentsText: '{}' });

  /** Where a body carries cache_control: `system.0`, `tools.1`, `messages.2.content.0`. */
  function breakpoints(body: Record<string, unknown>): string[] {
    const found: string[] = [];
    const visit = (value: unknown, path: string) => {
      if (Array.isArray(value)) value.forEach((item, index) => visit(item, `${path}.${index}`));
      else if (value !== null && typeof value === 'object') {
        if ('cache_control' in value) found.push(path.slice(1));
        for (const [key, item] of Object.entries(value)) if (key !== 'cache_control' && key !== 'input_schema') visit(item, `${path}.${key}`);
      }
    };
    for (const key of ['tools', 'system', 'messages']) visit(body[key], `.${key}`);
    return found;
  }

  /** The Anthropic limits, whatever the transcript: at most four, never on thinking or empty text. */
  function withinLimits(body: Record<string, unknown>) {
    const blocks = [...((body.system as unknown[]) ?? []), ...((body.tools as unknown[]) ?? [])];
    for (const message of body.messages as Array<{ content: unknown[] }>) blocks.push(...message.content);
    const marked = blocks.filter((block) => (block as Record<string, unknown>).cache_control !== undefined) as Array<Record<string, unknown>>;
    expect(marked.length).toBeLessThanOrEqual(4);
    for (const block of marked) {
      expect(block.cache_control).toEqual({ type: 'ephemeral' });
      expect(['thinking', 'redacted_thinking']).not.toContain(block.type);
      if (block.type === 'text') expect(block.text).not.toBe('');
    }
  }

  const anthropic = (overrides: Partial<ModelRequest>) => {
    const body = buildVendorBRequest(request('vendor_b', { systemPrompt: 'Be terse.', tools: TOOLS, ...overrides }));
    withinLimits(body);
    return body;
  };

  it('vendor_b: the system prompt (one text block) and the newest turn; the last tool when there is no system prompt', () => {
    const messages: ModelRequest['messages'] = [{ role: 'user', text: 'hi' }];
    const body = anthropic({ messages });
    expect(body.system).toEqual([{ type: 'text', text: 'Be terse.', cache_control: { type: 'ephemeral' } }]);
    expect(breakpoints(body)).toEqual(['system.0', 'messages.0.content.0']);
    expect(breakpoints(anthropic({ messages, systemPrompt: '' }))).toEqual(['tools.1', 'messages.0.content.0']);
    expect(breakpoints(anthropic({ messages, systemPrompt: '', tools: [] }))).toEqual(['messages.0.content.0']);
    expect(breakpoints(anthropic({ messages, tools: [] }))).toEqual(['system.0', 'messages.0.content.0']);
  });

  it('vendor_b: the compaction summary, once, also when it is the newest message or shares a message with the next user text', () => {
    const summary = { role: 'user' as const, text: 'Summary of turns 1-40.', summary: true };
    const later: ModelRequest['messages'] = [summary, { role: 'assistant', text: 'ok', toolCalls: [] }, { role: 'user', text: 'next' }];
    expect(breakpoints(anthropic({ messages: later }))).toEqual(['system.0', 'messages.0.content.0', 'messages.2.content.0']);
    expect(breakpoints(anthropic({ messages: later, systemPrompt: '', tools: [] }))).toEqual(['messages.0.content.0', 'messages.2.content.0']);
    expect(breakpoints(anthropic({ messages: [summary] }))).toEqual(['system.0', 'messages.0.content.0']);
    const merged = anthropic({ messages: [summary, { role: 'user', text: 'next' }] });
    expect((merged.messages as Array<{ content: unknown[] }>)[0]!.content).toEqual([
      { type: 'text', text: 'Summary of turns 1-40.', cache_control: { type: 'ephemeral' } },
      { type: 'text', text: 'next', cache_control: { type: 'ephemeral' } },
    ]);
    // An empty summary sends no block, so no breakpoint either.
    expect(
      breakpoints(
        anthropic({
          messages: [
            { ...summary, text: '' },
            { role: 'user', text: 'next' },
          ],
        }),
      ),
    ).toEqual(['system.0', 'messages.0.content.0']);
  });

  it('vendor_b: tool results as the newest turn mark the last result; thinking blocks and empty results never carry one', () => {
    const messages: ModelRequest['messages'] = [
      { role: 'user', text: 'Summary.', summary: true },
      { role: 'user', text: 'go' },
      { role: 'assistant', text: '', toolCalls: [call('t1'), call('t2')], replay },
      { role: 'tool', toolCallId: 't1', toolName: 'a', result: { ok: 1 }, isError: false },
      { role: 'tool', toolCallId: 't2', toolName: 'a', result: 'done', isError: false },
    ];
    const body = anthropic({ messages });
    expect(breakpoints(body)).toEqual(['system.0', 'messages.0.content.0', 'messages.2.content.1']);
    expect((body.messages as Array<{ content: unknown[] }>)[1]!.content[0]).toEqual(thinking);
    // The caller's replay blocks are left as they were.
    expect(replay.items[0]).toEqual({ type: 'thinking', thinking: 'Plan.', signature: 'sig' });
    // An empty last result: the result before it.
    const empty = [...messages.slice(0, 4), { role: 'tool' as const, toolCallId: 't2', toolName: 'a', result: '', isError: false }];
    expect(breakpoints(anthropic({ messages: empty }))).toEqual(['system.0', 'messages.0.content.0', 'messages.2.content.0']);
    // A newest message of thinking only has nothing to mark.
    const thinkingOnly: ModelRequest['messages'] = [
      { role: 'user', text: 'go' },
      { role: 'assistant', text: '', toolCalls: [], replay },
    ];
    expect(breakpoints(anthropic({ messages: thinkingOnly }))).toEqual(['system.0']);
  });

  it('vendor_a: prompt_cache_key is the given key, absent without one', () => {
    expect(buildVendorARequest(request('vendor_a', { model: 'gpt-5.2', promptCacheKey: 'session-1' })).prompt_cache_key).toBe('session-1');
    expect('prompt_cache_key' in buildVendorARequest(request('vendor_a', { model: 'gpt-5.2' }))).toBe(false);
  });

  it('vendor_c: nothing in the request; cachedContentTokenCount is the cache read (part of the prompt count)', () => {
    const body = buildVendorCRequest(request('vendor_c', { systemPrompt: 'Be terse.', promptCacheKey: 'session-1', messages: [{ role: 'user', text: 'hi' }] }));
    expect(JSON.stringify(body)).not.toMatch(/cache|session-1/i);
    const answer = {
      candidates: [{ content: { parts: [{ text: 'ok' }] }, finishReason: 'STOP' }],
      usageMetadata: { promptTokenCount: 5000, cachedContentTokenCount: 4096, candidatesTokenCount: 3, thoughtsTokenCount: 2 },
    };
    expect(parseVendorCResponse(request('vendor_c'), answer).usage).toEqual({ inputTokens: 5000, outputTokens: 5, cacheReadTokens: 4096, cacheWriteTokens: 0 });
  });

  it('gateway: content parts with cache_control for anthropic/… models only, and the session as session_id', () => {
    const messages: ModelRequest['messages'] = [
      { role: 'user', text: 'Summary.', summary: true },
      { role: 'user', text: 'go' },
      { role: 'assistant', text: '', toolCalls: [call('t1')] },
      { role: 'tool', toolCallId: 't1', toolName: 'a', result: 'done', isError: false },
    ];
    const part = (text: string) => [{ type: 'text', text, cache_control: { type: 'ephemeral' } }];
    const claude = buildGatewayRequest(
      request('gateway', { model: 'anthropic/claude-sonnet-4.6', systemPrompt: 'Be terse.', messages, promptCacheKey: 's-1' }),
    );
    expect(claude.messages).toEqual([
      { role: 'system', content: part('Be terse.') },
      { role: 'user', content: part('Summary.') },
      // The newest user message: OpenRouter documents no breakpoint on tool messages.
      { role: 'user', content: part('go') },
      { role: 'assistant', content: null, tool_calls: [{ id: 't1', type: 'function', function: { name: 'a', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 't1', content: 'done' },
    ]);
    expect(claude.session_id).toBe('s-1');
    const other = buildGatewayRequest(request('gateway', { model: 'openai/gpt-4o', systemPrompt: 'Be terse.', messages }));
    expect(JSON.stringify(other)).not.toContain('cache_control');
    expect((other.messages as unknown[]).slice(0, 2)).toEqual([
      { role: 'system', content: 'Be terse.' },
      { role: 'user', content: 'Summary.' },
    ]);
    expect('session_id' in other).toBe(false);
    // Never on empty text.
    const empty = buildGatewayRequest(request('gateway', { model: 'anthropic/claude-opus-4.6', messages: [{ role: 'user', text: '' }] }));
    expect(empty.messages).toEqual([{ role: 'user', content: '' }]);
  });

  it('the cache figures each vendor reports land in usage (input counts cached tokens too)', () => {
    const openai = { status: 'completed', output: [], usage: { input_tokens: 2000, input_tokens_details: { cached_tokens: 1536 }, output_tokens: 10 } };
    expect(parseVendorAResponse(request('vendor_a'), openai).usage).toEqual({
      inputTokens: 2000,
      outputTokens: 10,
      cacheReadTokens: 1536,
      cacheWriteTokens: 0,
    });
    const claude = {
      content: [],
      stop_reason: 'end_turn',
      usage: { input_tokens: 50, cache_read_input_tokens: 1800, cache_creation_input_tokens: 150, output_tokens: 10 },
    };
    expect(parseVendorBResponse(request('vendor_b'), claude).usage).toEqual({
      inputTokens: 2000,
      outputTokens: 10,
      cacheReadTokens: 1800,
      cacheWriteTokens: 150,
    });
    const routed = {
      choices: [{ index: 0, finish_reason: 'stop', message: { content: 'ok' } }],
      usage: { prompt_tokens: 2000, completion_tokens: 10, prompt_tokens_details: { cached_tokens: 1800, cache_write_tokens: 150 } },
    };
    expect(parseGatewayResponse(routed, request('gateway')).usage).toEqual({
      inputTokens: 2000,
      outputTokens: 10,
      cacheReadTokens: 1800,
      cacheWriteTokens: 150,
    });
  });
});

describe('adapterFor', () => {
  it('refuses an unknown provider type', () => {
    expect(() => adapterFor('sandbox_vendor' as ProviderType)).toThrow(/No model adapter/);
  });
});

// Streams: a recorded stream of each protocol, assembled, is the very ModelResult its
// non-streamed answer gives, and the text pieces it reports concatenate to that text.

type Assembler = { push(event: StreamEvent): boolean; finish(): ModelResult };

/** Feeds a recorded SSE text (in awkward pieces, CRLF or LF) to an assembler, as postStream does. */
function assemble(make: (request: ModelRequest) => Assembler, base: ModelRequest, recorded: string, pieceSize = 7) {
  const texts: string[] = [];
  const stream = make({ ...base, onStream: (event) => void (event.kind === 'text' && texts.push(event.text)) });
  const decoder = new SseDecoder();
  const events: SseEvent[] = [];
  for (let index = 0; index < recorded.length; index += pieceSize) events.push(...decoder.push(recorded.slice(index, index + pieceSize)));
  events.push(...decoder.end());
  for (const event of events) if (event.type === 'message' && stream.push(event)) break;
  return { result: stream.finish(), texts };
}

const sse = (events: Array<[string | null, unknown]>, lineEnd = '\n') =>
  events
    .map(([name, data]) => `${name ? `event: ${name}${lineEnd}` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}${lineEnd}${lineEnd}`)
    .join('');

const failed = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    if (error instanceof ModelInvocationError) return { code: error.errorCode, retryable: error.retryable, message: error.message };
    throw error;
  }
  throw new Error('expected a ModelInvocationError');
};

describe('the SSE decoder', () => {
  it('reads LF, CRLF and CR line ends split anywhere, comments, multi-line data and a last event without its blank line', () => {
    const text = ': OPENROUTER PROCESSING\r\n\r\nevent: a\r\ndata: 1\r\ndata:2\r\rid: 7\nretry: 10\ndata: {"x": "y"}\n\nevent: tail\ndata: end';
    const expected: SseEvent[] = [
      { type: 'comment', text: 'OPENROUTER PROCESSING' },
      { type: 'message', event: 'a', data: '1\n2' },
      { type: 'message', event: null, data: '{"x": "y"}' },
      { type: 'message', event: 'tail', data: 'end' },
    ];
    expect(decodeSse(text)).toEqual(expected);
    for (const size of [1, 2, 3, 5]) {
      const decoder = new SseDecoder();
      const events: SseEvent[] = [];
      for (let index = 0; index < text.length; index += size) events.push(...decoder.push(text.slice(index, index + size)));
      expect([...events, ...decoder.end()]).toEqual(expected);
    }
  });
});

describe('vendor_a stream (Responses API)', () => {
  const base = request('vendor_a', { model: 'gpt-5.2' });
  const response = {
    id: 'resp_1',
    object: 'response',
    status: 'completed',
    model: 'gpt-5.2',
    output: [
      { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Weather tool.' }], encrypted_content: 'enc_1' },
      { type: 'message', id: 'msg_1', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'Let me check Oslo.', annotations: [] }] },
      { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Oslo"}', status: 'completed' },
    ],
    incomplete_details: null,
    usage: {
      input_tokens: 50,
      input_tokens_details: { cached_tokens: 32 },
      output_tokens: 10,
      output_tokens_details: { reasoning_tokens: 4 },
      total_tokens: 60,
    },
  };
  const pending = { ...response, status: 'in_progress', output: [], usage: null };
  const recorded = (final: [string, unknown]) =>
    sse([
      ['response.created', { type: 'response.created', sequence_number: 0, response: pending }],
      ['response.in_progress', { type: 'response.in_progress', sequence_number: 1, response: pending }],
      ['response.output_item.added', { type: 'response.output_item.added', sequence_number: 2, output_index: 0, item: { ...response.output[0], summary: [] } }],
      [
        'response.reasoning_summary_text.delta',
        { type: 'response.reasoning_summary_text.delta', sequence_number: 3, item_id: 'rs_1', output_index: 0, summary_index: 0, delta: 'Weather tool.' },
      ],
      ['response.output_item.done', { type: 'response.output_item.done', sequence_number: 4, output_index: 0, item: response.output[0] }],
      [
        'response.content_part.added',
        {
          type: 'response.content_part.added',
          sequence_number: 5,
          item_id: 'msg_1',
          output_index: 1,
          content_index: 0,
          part: { type: 'output_text', text: '', annotations: [] },
        },
      ],
      [
        'response.output_text.delta',
        { type: 'response.output_text.delta', sequence_number: 6, item_id: 'msg_1', output_index: 1, content_index: 0, delta: 'Let me ' },
      ],
      [
        'response.output_text.delta',
        { type: 'response.output_text.delta', sequence_number: 7, item_id: 'msg_1', output_index: 1, content_index: 0, delta: 'check Oslo.' },
      ],
      [
        'response.output_text.done',
        { type: 'response.output_text.done', sequence_number: 8, item_id: 'msg_1', output_index: 1, content_index: 0, text: 'Let me check Oslo.' },
      ],
      [
        'response.function_call_arguments.delta',
        { type: 'response.function_call_arguments.delta', sequence_number: 9, item_id: 'fc_1', output_index: 2, delta: '{"city":' },
      ],
      [
        'response.function_call_arguments.delta',
        { type: 'response.function_call_arguments.delta', sequence_number: 10, item_id: 'fc_1', output_index: 2, delta: '"Oslo"}' },
      ],
      final,
    ]);

  it('assembles the same result as the non-streamed response; the text pieces are the deltas', () => {
    const { result, texts } = assemble(
      (r) => new VendorAStream(r),
      base,
      recorded(['response.completed', { type: 'response.completed', sequence_number: 11, response }]),
    );
    expect(result).toEqual(parseVendorAResponse(base, response));
    expect(texts).toEqual(['Let me ', 'check Oslo.']);
    expect(texts.join('')).toBe(result.text);
  });

  it('an incomplete or failed terminal event reads like the non-streamed body', () => {
    const incomplete = { ...response, status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } };
    expect(
      assemble((r) => new VendorAStream(r), base, recorded(['response.incomplete', { type: 'response.incomplete', response: incomplete }])).result,
    ).toMatchObject({
      finishReason: 'length',
      providerFinishReason: 'incomplete:max_output_tokens',
    });
    const failedResponse = { ...response, status: 'failed', error: { code: 'rate_limit_exceeded', message: 'x' } };
    expect(
      failed(() => assemble((r) => new VendorAStream(r), base, recorded(['response.failed', { type: 'response.failed', response: failedResponse }]))),
    ).toMatchObject({
      code: 'provider_rate_limited',
      retryable: true,
    });
  });

  it('text sent only in the final response is reported at the end; text that contradicts the deltas is refused', () => {
    const silent = sse([['response.completed', { type: 'response.completed', response }]]);
    expect(assemble((r) => new VendorAStream(r), base, silent).texts).toEqual(['Let me check Oslo.']);
    const contradicting = sse([
      ['response.output_text.delta', { type: 'response.output_text.delta', delta: 'Something else' }],
      ['response.completed', { type: 'response.completed', response }],
    ]);
    expect(failed(() => assemble((r) => new VendorAStream(r), base, contradicting))).toMatchObject({ code: 'provider_invalid_response', retryable: true });
  });

  it('error events map like the HTTP answers they stand for; a stream without its terminal event is incomplete', () => {
    const error = (data: unknown) => failed(() => assemble((r) => new VendorAStream(r), base, sse([['error', data]])));
    expect(error({ type: 'error', code: 'rate_limit_exceeded', message: 'Slow down', param: null })).toMatchObject({
      code: 'provider_rate_limited',
      retryable: true,
    });
    expect(error({ type: 'error', code: 'insufficient_quota', message: 'Quota', param: null })).toMatchObject({
      code: 'provider_quota_exhausted',
      retryable: false,
    });
    expect(error({ type: 'error', code: null, message: 'The server had an error', param: null })).toMatchObject({
      code: 'provider_server_error',
      retryable: true,
    });
    expect(
      failed(() => assemble((r) => new VendorAStream(r), base, sse([[null, { error: { message: 'The server had an error', type: 'server_error' } }]]))),
    ).toMatchObject({
      code: 'provider_server_error',
      retryable: true,
    });
    expect(error({ type: 'error', error: { type: 'invalid_request_error', code: 'context_length_exceeded', message: 'Too long for key k' } })).toMatchObject({
      code: 'provider_context_overflow',
      retryable: false,
    });
    expect(error({ type: 'error', error: { type: 'invalid_request_error', code: 'invalid_value', message: 'Invalid input' } })).toMatchObject({
      code: 'provider_rejected_request',
      retryable: false,
    });
    const truncated = failed(() =>
      assemble((r) => new VendorAStream(r), base, recorded(['response.in_progress', { type: 'response.in_progress', response: pending }])),
    );
    expect(truncated).toMatchObject({ code: 'provider_invalid_response', retryable: true });
    expect(failed(() => assemble((r) => new VendorAStream(r), base, 'data: {"type": "response.output_text.delta", "delta": "cut\n\n'))).toMatchObject({
      code: 'provider_invalid_response',
    });
  });
});

describe('vendor_b stream (Messages API)', () => {
  const base = request('vendor_b', { model: 'claude-opus-4-6' });
  const message = {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'claude-opus-4-6',
    content: [
      { type: 'thinking', thinking: 'Check the weather.', signature: 'EqQBCgIYAhIM' },
      { type: 'text', text: 'Checking Oslo.' },
      { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Oslo', days: [1, 2] } },
    ],
    stop_reason: 'tool_use',
    stop_sequence: null,
    usage: { input_tokens: 472, cache_creation_input_tokens: 100, cache_read_input_tokens: 900, output_tokens: 89 },
  };
  const start = { ...message, content: [], stop_reason: null, usage: { ...message.usage, output_tokens: 2 } };
  const delta = (index: number, value: unknown) => ['content_block_delta', { type: 'content_block_delta', index, delta: value }] as [string, unknown];
  const body = (end: Array<[string, unknown]>) =>
    [
      ['message_start', { type: 'message_start', message: start }],
      ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '' } }],
      ['ping', { type: 'ping' }],
      delta(0, { type: 'thinking_delta', thinking: 'Check the' }),
      delta(0, { type: 'thinking_delta', thinking: ' weather.' }),
      delta(0, { type: 'signature_delta', signature: 'EqQBCgIYAhIM' }),
      ['content_block_stop', { type: 'content_block_stop', index: 0 }],
      ['content_block_start', { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } }],
      delta(1, { type: 'text_delta', text: 'Checking' }),
      delta(1, { type: 'text_delta', text: ' Oslo.' }),
      ['content_block_stop', { type: 'content_block_stop', index: 1 }],
      ['content_block_start', { type: 'content_block_start', index: 2, content_block: { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: {} } }],
      delta(2, { type: 'input_json_delta', partial_json: '' }),
      delta(2, { type: 'input_json_delta', partial_json: '{"city": "Os' }),
      delta(2, { type: 'input_json_delta', partial_json: 'lo", "days": [1, 2]}' }),
      ['content_block_stop', { type: 'content_block_stop', index: 2 }],
      ...end,
    ] as Array<[string, unknown]>;
  const ending: Array<[string, unknown]> = [
    ['message_delta', { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 89 } }],
    ['message_stop', { type: 'message_stop' }],
  ];

  it('assembles the same result as the non-streamed message (CRLF framing); the text pieces are the text deltas', () => {
    const { result, texts } = assemble((r) => new VendorBStream(r), base, sse(body(ending), '\r\n'), 5);
    expect(result).toEqual(parseVendorBResponse(base, message));
    expect(texts).toEqual(['Checking', ' Oslo.']);
    expect(result.usage).toEqual({ inputTokens: 1472, outputTokens: 89, cacheReadTokens: 900, cacheWriteTokens: 100 });
  });

  it('an error event maps like its HTTP status (overloaded like 529); a stream without message_stop is incomplete', () => {
    const error = (type: string) =>
      failed(() => assemble((r) => new VendorBStream(r), base, sse(body([['error', { type: 'error', error: { type, message: 'Overloaded' } }]]))));
    expect(error('overloaded_error')).toMatchObject({ code: 'provider_server_error', retryable: true });
    expect(error('api_error')).toMatchObject({ code: 'provider_server_error', retryable: true });
    expect(error('rate_limit_error')).toMatchObject({ code: 'provider_rate_limited', retryable: true });
    expect(error('invalid_request_error')).toMatchObject({ code: 'provider_rejected_request', retryable: false });
    expect(error('overloaded_error').message).toBe('The vendor_b provider reported an error in its stream (overloaded_error): Overloaded');
    expect(failed(() => assemble((r) => new VendorBStream(r), base, sse(body([ending[0]!]))))).toMatchObject({
      code: 'provider_invalid_response',
      retryable: true,
    });
  });
});

describe('vendor_c stream (streamGenerateContent)', () => {
  const base = request('vendor_c', { model: 'gemini-3-pro-preview', messages: [{ role: 'user', text: 'Weather?' }] });
  const chunk = (parts: unknown[] | null, extra: Record<string, unknown> = {}, usageMetadata: unknown = { promptTokenCount: 9, totalTokenCount: 9 }) => ({
    candidates: [{ ...(parts ? { content: { parts, role: 'model' } } : {}), index: 0, ...extra }],
    usageMetadata,
    modelVersion: 'gemini-3-pro-preview',
    responseId: 'resp_c1',
  });
  const finalUsage = { promptTokenCount: 9, candidatesTokenCount: 5, thoughtsTokenCount: 26, cachedContentTokenCount: 4, totalTokenCount: 40 };

  it('merges text pieces (a signature on a last empty part closes them) into the non-streamed parts', () => {
    const recorded = sse([
      [null, chunk([{ text: '**Weather**', thought: true }])],
      [null, chunk([{ text: ' lookup.', thought: true }])],
      [null, chunk([{ text: 'It is' }])],
      [null, chunk([{ text: ' sunny.' }])],
      [null, chunk([{ text: '', thoughtSignature: 'sig_text' }], { finishReason: 'STOP' }, finalUsage)],
    ]);
    const whole = {
      candidates: [
        {
          content: {
            parts: [
              { text: '**Weather** lookup.', thought: true },
              { text: 'It is sunny.', thoughtSignature: 'sig_text' },
            ],
            role: 'model',
          },
          finishReason: 'STOP',
          index: 0,
        },
      ],
      usageMetadata: finalUsage,
      modelVersion: 'gemini-3-pro-preview',
      responseId: 'resp_c1',
    };
    const { result, texts } = assemble((r) => new VendorCStream(r), base, recorded);
    expect(result).toEqual(parseVendorCResponse(base, whole));
    expect(texts).toEqual(['It is', ' sunny.']);
    expect(result.replay?.items).toEqual(whole.candidates[0]!.content.parts);
  });

  it('keeps function calls whole with their signatures, so synthesized ids match the non-streamed answer', () => {
    const calls = [
      { functionCall: { name: 'get_weather', args: { city: 'Oslo' } }, thoughtSignature: 'sig_1' },
      { functionCall: { name: 'get_weather', args: { city: 'Bergen' } } },
    ];
    const recorded = sse([
      [null, chunk([{ text: 'Two cities.', thought: true }])],
      [null, chunk(calls, { finishReason: 'STOP' }, finalUsage)],
    ]);
    const whole = {
      candidates: [{ content: { parts: [{ text: 'Two cities.', thought: true }, ...calls], role: 'model' }, finishReason: 'STOP', index: 0 }],
      usageMetadata: finalUsage,
      responseId: 'resp_c1',
    };
    const { result, texts } = assemble((r) => new VendorCStream(r), base, recorded);
    expect(result).toEqual(parseVendorCResponse(base, whole));
    expect(result.toolCalls.map((call) => call.id)).toEqual(parseVendorCResponse(base, whole).toolCalls.map((call) => call.id));
    expect(texts).toEqual([]);
  });

  it('a blocked prompt, an error chunk and a stream without finishReason', () => {
    const blocked = sse([[null, { promptFeedback: { blockReason: 'PROHIBITED_CONTENT' }, usageMetadata: { promptTokenCount: 9 } }]]);
    expect(failed(() => assemble((r) => new VendorCStream(r), base, blocked))).toMatchObject({ code: 'provider_refused_content', retryable: false });
    const error = (code: number, status: string) =>
      failed(() =>
        assemble(
          (r) => new VendorCStream(r),
          base,
          sse([
            [null, chunk([{ text: 'It' }])],
            [null, { error: { code, message: 'boom', status } }],
          ]),
        ),
      );
    expect(error(503, 'UNAVAILABLE')).toMatchObject({ code: 'provider_server_error', retryable: true });
    expect(error(429, 'RESOURCE_EXHAUSTED')).toMatchObject({ code: 'provider_rate_limited', retryable: true });
    expect(error(400, 'INVALID_ARGUMENT')).toMatchObject({ code: 'provider_rejected_request', retryable: false });
    expect(failed(() => assemble((r) => new VendorCStream(r), base, sse([[null, chunk([{ text: 'It' }])]])))).toMatchObject({
      code: 'provider_invalid_response',
      retryable: true,
    });
  });
});

describe('gateway stream (chat completion chunks)', () => {
  const base = request('gateway', { model: 'anthropic/claude-sonnet-4.6' });
  const head = { id: 'gen-1', provider: 'Anthropic', model: 'anthropic/claude-sonnet-4.6', object: 'chat.completion.chunk', created: 1 };
  const chunk = (delta: Record<string, unknown>, finish: string | null = null, native: string | null = null) => ({
    ...head,
    choices: [{ index: 0, delta: { role: 'assistant', ...delta }, finish_reason: finish, native_finish_reason: native, logprobs: null }],
  });
  const usageBody = { prompt_tokens: 70, completion_tokens: 9, total_tokens: 79, prompt_tokens_details: { cached_tokens: 64, cache_write_tokens: 6 } };
  const recorded = (end: Array<[string | null, unknown]>) =>
    `: OPENROUTER PROCESSING\n\n${sse([
      [null, chunk({ content: '', reasoning: 'Need' })],
      [null, chunk({ content: '', reasoning: ' weather.' })],
      [null, chunk({ content: 'Checking' })],
      [null, chunk({ content: ' now.' })],
      [null, chunk({ content: null, tool_calls: [{ index: 0, id: 'toolu_1', type: 'function', function: { name: 'get_weather', arguments: '' } }] })],
      [null, chunk({ content: null, tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] })],
      [null, chunk({ content: null, tool_calls: [{ index: 0, function: { arguments: '"Oslo"}' } }] })],
      ...end,
    ])}`;

  it('assembles the same result as the non-streamed completion; the text pieces are the content deltas', () => {
    const { result, texts } = assemble(
      (r) => new GatewayStream(r),
      base,
      recorded([
        [null, chunk({ content: '' }, 'tool_calls', 'tool_use')],
        [null, { ...head, choices: [], usage: usageBody }],
        [null, '[DONE]'],
      ]),
    );
    const whole = {
      ...head,
      object: 'chat.completion',
      choices: [
        {
          index: 0,
          finish_reason: 'tool_calls',
          native_finish_reason: 'tool_use',
          message: {
            role: 'assistant',
            content: 'Checking now.',
            reasoning: 'Need weather.',
            tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }],
          },
        },
      ],
      usage: usageBody,
    };
    expect(result).toEqual(parseGatewayResponse(whole, base));
    expect(texts).toEqual(['Checking', ' now.']);
  });

  it('an error chunk after tokens fails like the upstream error body; a stream without [DONE] is incomplete', () => {
    const error = (code: unknown) =>
      failed(() =>
        assemble(
          (r) => new GatewayStream(r),
          base,
          recorded([
            [null, { ...head, error: { code, message: 'Provider disconnected' }, choices: [{ index: 0, delta: { content: '' }, finish_reason: 'error' }] }],
          ]),
        ),
      );
    expect(error(502)).toMatchObject({ code: 'provider_server_error', retryable: true });
    expect(error(429)).toMatchObject({ code: 'provider_rate_limited', retryable: true });
    expect(error('server_error')).toMatchObject({ code: 'provider_server_error', retryable: true });
    const finishError = failed(() =>
      assemble(
        (r) => new GatewayStream(r),
        base,
        recorded([
          [null, chunk({ content: '' }, 'error')],
          [null, '[DONE]'],
        ]),
      ),
    );
    expect(finishError).toMatchObject({ code: 'provider_server_error', retryable: true });
    expect(failed(() => assemble((r) => new GatewayStream(r), base, recorded([[null, chunk({ content: '' }, 'stop', 'end_turn')]])))).toMatchObject({
      code: 'provider_invalid_response',
      retryable: true,
    });
  });
});
