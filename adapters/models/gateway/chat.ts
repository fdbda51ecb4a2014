import { GatewayRouting } from '../../../domain/model-presets/routing.ts';
import { CONTEXT_OVERFLOW, modelError, safeVendorText, type VendorErrorDetail } from '../errors.ts';
import { eventJson, joinUrl, postStream, streamEndedEarly, type StreamEvent } from '../chat-http.ts';
import { finishText, list, parseStored, record, StreamText, text, tokens, toolCall, toolResultText, usage } from '../shared.ts';
import type { FinishReason, ModelAdapter, ModelRequest, ModelResult, ModelToolCall } from '../types.ts';
import { noteResponseModel } from '../trace.ts';

/**
 * gateway = OpenRouter chat completions: `POST {base}/chat/completions` with `stream: true` and
 * `Authorization: Bearer`. `model` is the vendor model id or a saved `@preset/<slug>`.
 */
export const gatewayAdapter: ModelAdapter = async (request) => {
  const body = buildGatewayRequest(request);
  const stream = new GatewayStream(request);
  const answer = await postStream(
    request,
    joinUrl(request.baseUrl, '/chat/completions'),
    { authorization: `Bearer ${request.apiKey}` },
    body,
    readGatewayError,
    (event) => stream.push(event),
  );
  return answer.kind === 'json' ? stream.whole(answer.body) : stream.finish();
};

/**
 * Rebuilds the chat.completion from its `chat.completion.chunk`s, as the OpenAI SDK's
 * ChatCompletionStream does, and reads it with `parseGatewayResponse`: choice 0's
 * `delta.content` (the visible text) and `delta.reasoning` append, `delta.tool_calls` merge by
 * `index` (id, name; `function.arguments` append), the last `finish_reason`,
 * `native_finish_reason` and choice `error` win, and `usage` comes with the last chunk
 * (`stream_options.include_usage`). `data: [DONE]` ends it; comments (`: OPENROUTER
 * PROCESSING`) only keep it alive. A chunk carrying a top-level `error` (OpenRouter's failure
 * after tokens were sent) fails like an error body on a 200 answer; a stream without
 * `[DONE]` is incomplete.
 */
export class GatewayStream {
  readonly #request: ModelRequest;
  readonly #text: StreamText;
  readonly #completion: Record<string, unknown> = {};
  readonly #choice: Record<string, unknown> = { index: 0 };
  readonly #message: {
    role: string;
    content: string | null;
    reasoning: string | null;
    tool_calls: Array<Record<string, unknown> & { function: { name: string; arguments: string } }>;
  } = {
    role: 'assistant',
    content: null,
    reasoning: null,
    tool_calls: [],
  };
  #sawChoice = false;
  #done = false;

  constructor(request: ModelRequest) {
    this.#request = request;
    this.#text = new StreamText(request);
  }

  /** One event; true at `[DONE]`. */
  push(event: StreamEvent): boolean {
    if (event.data.trim() === '[DONE]') {
      this.#done = true;
      return true;
    }
    const chunk = eventJson(this.#request, event.data);
    if (chunk.usage !== undefined && chunk.usage !== null) this.#completion.usage = chunk.usage;
    if (Object.keys(record(chunk.error)).length > 0) throw upstreamError(this.#request, record(chunk.error), this.#usage());
    for (const key of ['id', 'model', 'provider', 'created'] as const) if (chunk[key] !== undefined) this.#completion[key] = chunk[key];
    for (const raw of list(chunk.choices).map(record)) {
      if ((typeof raw.index === 'number' ? raw.index : 0) !== 0) continue;
      this.#sawChoice = true;
      for (const key of ['finish_reason', 'native_finish_reason', 'error'] as const)
        if (raw[key] !== undefined && raw[key] !== null) this.#choice[key] = raw[key];
      this.#delta(record(raw.delta));
    }
    return false;
  }

  #delta(delta: Record<string, unknown>): void {
    if (typeof delta.content === 'string' && delta.content !== '') {
      this.#message.content = (this.#message.content ?? '') + delta.content;
      this.#text.add(delta.content);
    }
    if (typeof delta.reasoning === 'string' && delta.reasoning !== '') this.#message.reasoning = (this.#message.reasoning ?? '') + delta.reasoning;
    for (const [position, raw] of list(delta.tool_calls).map(record).entries()) {
      const index = typeof raw.index === 'number' ? raw.index : position;
      const call = (this.#message.tool_calls[index] ??= { type: 'function', function: { name: '', arguments: '' } });
      const fn = record(raw.function);
      if (typeof raw.id === 'string' && raw.id !== '') call.id = raw.id;
      if (typeof fn.name === 'string' && fn.name !== '') call.function.name = fn.name;
      if (typeof fn.arguments === 'string') call.function.arguments += fn.arguments;
    }
  }

  #usage(): ModelResult['usage'] {
    const raw = record(this.#completion.usage);
    const details = record(raw.prompt_tokens_details);
    return usage(tokens(raw.prompt_tokens), tokens(raw.completion_tokens), tokens(details.cached_tokens), tokens(details.cache_write_tokens));
  }

  finish(): ModelResult {
    if (!this.#done) throw streamEndedEarly(this.#request, 'data: [DONE]');
    const calls = this.#message.tool_calls.filter((call) => call !== undefined);
    const message = { ...this.#message, tool_calls: calls.length > 0 ? calls : undefined };
    const answer = { ...this.#completion, object: 'chat.completion', choices: this.#sawChoice ? [{ ...this.#choice, message }] : [] };
    return this.#text.settle(parseGatewayResponse(answer, this.#request));
  }

  /** A non-streamed answer: the whole text as one piece. */
  whole(body: unknown): ModelResult {
    return this.#text.settle(parseGatewayResponse(body, this.#request));
  }
}

/**
 * Routing policy → OpenRouter's `provider` object: allowFallbacks → allow_fallbacks,
 * requireParameters → require_parameters, dataCollection → data_collection,
 * zeroDataRetention → zdr, providerOrder → order, providerAllowlist → only,
 * providerDenylist → ignore, sort → sort, max*PriceUsdPerMillion → max_price {prompt,
 * completion} (both USD per million tokens). Unset fields are left out; an empty policy sends
 * no `provider` object, so a saved preset's own routing applies.
 */
export function providerObject(routing: GatewayRouting): Record<string, unknown> | null {
  const maxPrice = {
    ...(routing.maxPromptPriceUsdPerMillion !== undefined ? { prompt: routing.maxPromptPriceUsdPerMillion } : {}),
    ...(routing.maxCompletionPriceUsdPerMillion !== undefined ? { completion: routing.maxCompletionPriceUsdPerMillion } : {}),
  };
  const provider = Object.fromEntries(
    Object.entries({
      allow_fallbacks: routing.allowFallbacks,
      require_parameters: routing.requireParameters,
      data_collection: routing.dataCollection,
      zdr: routing.zeroDataRetention,
      order: routing.providerOrder,
      only: routing.providerAllowlist,
      ignore: routing.providerDenylist,
      sort: routing.sort,
      max_price: Object.keys(maxPrice).length > 0 ? maxPrice : undefined,
    }).filter(([, value]) => value !== undefined),
  );
  return Object.keys(provider).length > 0 ? provider : null;
}

export function buildGatewayRequest(request: ModelRequest): Record<string, unknown> {
  const provider = providerObject(parseStored(GatewayRouting, request.routing, 'routing'));
  return {
    model: request.model,
    stream: true,
    // The last chunk carries usage (OpenRouter always sends it; this asks OpenAI-compatible peers too).
    stream_options: { include_usage: true },
    messages: messages(request),
    ...(request.tools.length > 0
      ? {
          tools: request.tools.map((tool) => ({
            type: 'function',
            function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
          })),
        }
      : {}),
    ...(provider ? { provider } : {}),
    // OpenRouter's sticky-routing key: every turn of a session goes to the same upstream
    // endpoint, whose prompt cache is warm (OpenAI's prompt_cache_key, for any model).
    ...(request.promptCacheKey ? { session_id: request.promptCacheKey } : {}),
  };
}

const EPHEMERAL = { type: 'ephemeral' } as const;

/**
 * Prompt caching. OpenRouter passes Anthropic's `cache_control` breakpoints through from text
 * content parts of system and user messages (at most four), and Claude caches only with them;
 * other models cache implicitly (OpenAI, Gemini, DeepSeek) and get plain string content. For an
 * `anthropic/…` model the places are those of the vendor_b adapter, as far as OpenRouter
 * documents them: the system prompt (which caches the tools with it), the compaction summary,
 * and the newest user message (in a tool loop that stays the user's message: OpenRouter documents
 * no breakpoint on tool messages). Never on empty text. Cached reads and writes come back as
 * `usage.prompt_tokens_details.cached_tokens` and `cache_write_tokens`.
 */
function cachedContent(request: ModelRequest): (text: string) => unknown {
  if (!request.model.startsWith('anthropic/')) return (text) => text;
  return (text) => (text === '' ? text : [{ type: 'text', text, cache_control: EPHEMERAL }]);
}

function messages(request: ModelRequest): unknown[] {
  const cached = cachedContent(request);
  const newestUser = request.messages.findLastIndex((message) => message.role === 'user');
  const out: unknown[] = request.systemPrompt !== '' ? [{ role: 'system', content: cached(request.systemPrompt) }] : [];
  for (const [index, message] of request.messages.entries()) {
    if (message.role === 'user') {
      const marked = message.summary === true || index === newestUser;
      out.push({ role: 'user', content: marked ? cached(message.text) : message.text });
    } else if (message.role === 'tool') out.push({ role: 'tool', tool_call_id: message.toolCallId, content: toolResultText(message) });
    else {
      out.push({
        role: 'assistant',
        content: message.text === '' ? null : message.text,
        ...(message.toolCalls.length > 0
          ? { tool_calls: message.toolCalls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.argumentsText } })) }
          : {}),
      });
    }
  }
  return out;
}

const FINISH: Record<string, FinishReason> = { stop: 'stop', tool_calls: 'tool_calls', length: 'length', content_filter: 'content_filter' };

/** Reads `choices[0].message` (content, tool_calls, reasoning), `finish_reason` and `usage`. */
export function parseGatewayResponse(answer: unknown, request: ModelRequest): ModelResult {
  const body = record(answer);
  noteResponseModel(body.model);
  const raw = record(body.usage);
  const details = record(raw.prompt_tokens_details);
  const usageOut = usage(tokens(raw.prompt_tokens), tokens(raw.completion_tokens), tokens(details.cached_tokens), tokens(details.cache_write_tokens));
  // OpenRouter may answer 200 with an error object when the upstream failed after routing.
  const choice = record(list(body.choices)[0]);
  if (Object.keys(choice).length === 0) {
    if (Object.keys(record(body.error)).length > 0) throw upstreamError(request, record(body.error), usageOut);
    throw modelError('provider_invalid_response', 'The gateway provider answered without a choice');
  }
  const finish = text(choice.finish_reason);
  if (finish === 'error') throw upstreamError(request, record(choice.error), usageOut);
  const message = record(choice.message);
  const toolCalls: ModelToolCall[] = list(message.tool_calls)
    .map(record)
    .map((call) => toolCall(text(call.id), text(record(call.function).name), text(record(call.function).arguments)));
  const reasoning = text(message.reasoning);
  return {
    text: text(message.content),
    toolCalls,
    finishReason: (Object.hasOwn(FINISH, finish) ? FINISH[finish] : undefined) ?? (toolCalls.length > 0 ? 'tool_calls' : 'other'),
    providerFinishReason: finishText(text(choice.native_finish_reason) || finish),
    usage: usageOut,
    thinking: reasoning.trim() !== '' ? reasoning : null,
  };
}

// An error OpenRouter reports on a 200 answer (an error chunk, an error body, a choice that
// failed): a refused input size is the overflow, as on a 400; anything else is the upstream's
// failure, retryable.
function upstreamError(request: ModelRequest, error: Record<string, unknown>, usageOut: ModelResult['usage']) {
  const status = typeof error.code === 'number' ? error.code : null;
  const detail = readGatewayErrorObject(error);
  const vendorText = detail.message ? `: ${safeVendorText(detail.message, request.apiKey)}` : '';
  const extra = { providerFinishReason: 'error', usage: usageOut, httpStatus: status };
  if (detail.contextOverflow) return modelError('provider_context_overflow', `The gateway's upstream provider refused the input${vendorText}`, extra);
  const code = status === 429 ? 'provider_rate_limited' : 'provider_server_error';
  return modelError(code, `The gateway's upstream provider failed${vendorText}`, extra);
}

/** OpenRouter error body: `{error: {code, message, metadata}}`. */
export function readGatewayError(body: unknown): VendorErrorDetail {
  return readGatewayErrorObject(record(record(body).error));
}

/**
 * OpenRouter's error object. Its own overflow answer is "This endpoint's maximum context length
 * is N tokens…"; an upstream's refusal comes as "Provider returned error" with the upstream's
 * body in `metadata.raw` (JSON text, or the object), read with that vendor's recognizer
 * (Anthropic's "prompt is too long", OpenAI's `context_length_exceeded`, Gemini's token count).
 * The upstream's message joins OpenRouter's, so the sizes it names are kept.
 */
function readGatewayErrorObject(error: Record<string, unknown>): VendorErrorDetail {
  const upstream = upstreamErrorOf(record(error.metadata).raw);
  const outer = text(error.message);
  const inner = upstream ? text(upstream.message) : '';
  const overflow = (candidate: Record<string, unknown>) => Object.values(CONTEXT_OVERFLOW).some((recognize) => recognize(candidate));
  return {
    message: [outer, inner].filter((part, index, parts) => part !== '' && parts.indexOf(part) === index).join(': ') || undefined,
    // `code` repeats the HTTP status as a number; only a string code says more.
    code: text(error.code) || undefined,
    contextOverflow: CONTEXT_OVERFLOW.openrouter(error) || (upstream !== null && overflow(upstream)),
  };
}

// The upstream's error object from `metadata.raw`: its `error` when it has one (OpenAI, Gemini,
// Anthropic bodies), else the object itself; raw text that is not JSON is its message.
function upstreamErrorOf(raw: unknown): Record<string, unknown> | null {
  let body = raw;
  if (typeof raw === 'string') {
    try {
      body = JSON.parse(raw) as unknown;
    } catch {
      return raw.trim() === '' ? null : { message: raw };
    }
  }
  const object = record(body);
  if (Object.keys(object).length === 0) return null;
  const inner = record(object.error);
  return Object.keys(inner).length > 0 ? inner : object;
}
