import { VendorBSettings } from '../../../domain/model-presets/settings.ts';
import { CONTEXT_OVERFLOW, modelError, streamError, type VendorErrorDetail } from '../errors.ts';
import { eventJson, joinUrl, postStream, streamEndedEarly, type StreamEvent } from '../chat-http.ts';
import { finishText, joinThinking, list, parseStored, record, replayItems, replayOf, StreamText, text, tokens, usage } from '../shared.ts';
import type { FinishReason, ModelAdapter, ModelRequest, ModelResult, ModelToolCall } from '../types.ts';
import { noteResponseModel } from '../trace.ts';

/** The Messages API version header every request carries. */
export const ANTHROPIC_VERSION = '2023-06-01';

/** vendor_b = Anthropic Messages API: `POST {base}/v1/messages` with `stream: true` and `x-api-key`. */
export const vendorBAdapter: ModelAdapter = async (request) => {
  const headers = { 'x-api-key': request.apiKey, 'anthropic-version': ANTHROPIC_VERSION };
  const body = buildVendorBRequest(request);
  const stream = new VendorBStream(request);
  const answer = await postStream(request, joinUrl(request.baseUrl, '/v1/messages'), headers, body, readVendorBError, (event) => stream.push(event));
  return answer.kind === 'json' ? stream.whole(answer.body) : stream.finish();
};

/**
 * Rebuilds the Message object from the stream, as the official SDK's MessageStream does, and
 * reads it with `parseVendorBResponse`: `message_start` (the message, its input usage),
 * `content_block_start` (a block at `index`), `content_block_delta` (`text_delta` → the block's
 * text and the visible text, `input_json_delta` → the tool input's JSON, parsed at
 * `content_block_stop`, `thinking_delta`, `signature_delta`), `message_delta` (stop reason;
 * usage counts present there replace the earlier ones), `message_stop` (the end). `ping` is
 * ignored; `event: error` is the vendor's error (`overloaded_error` like a 529, `api_error` like
 * a 500, ...). A stream without `message_stop` is incomplete.
 */
export class VendorBStream {
  readonly #request: ModelRequest;
  readonly #text: StreamText;
  #message: Record<string, unknown> | null = null;
  readonly #content: Array<Record<string, unknown> | undefined> = [];
  /** Tool-input JSON received so far, by block index, until the block stops. */
  readonly #json = new Map<number, string>();
  #stopped = false;

  constructor(request: ModelRequest) {
    this.#request = request;
    this.#text = new StreamText(request);
  }

  /** One event; true at `message_stop`. */
  push(event: StreamEvent): boolean {
    const data = eventJson(this.#request, event.data);
    const type = text(data.type) || event.event;
    if (type === 'error') throw streamError('vendor_b', readVendorBError(data), this.#request.apiKey);
    if (type === 'message_start') {
      this.#message = { ...record(data.message) };
      this.#content.push(...list(this.#message.content).map((block) => ({ ...record(block) })));
      return false;
    }
    if (!this.#message) return false;
    const index = typeof data.index === 'number' ? data.index : -1;
    switch (type) {
      case 'content_block_start': {
        const block = { ...record(data.content_block) };
        const at = index >= 0 ? index : this.#content.length;
        this.#content[at] = block;
        if (block.type === 'text') this.#text.add(text(block.text));
        if (block.type === 'tool_use' || block.type === 'server_tool_use') this.#json.set(at, '');
        return false;
      }
      case 'content_block_delta':
        this.#delta(index, record(data.delta));
        return false;
      case 'content_block_stop':
        this.#closeInput(index);
        return false;
      case 'message_delta': {
        const delta = record(data.delta);
        if ('stop_reason' in delta) this.#message.stop_reason = delta.stop_reason;
        if ('stop_sequence' in delta) this.#message.stop_sequence = delta.stop_sequence;
        const counts = Object.entries(record(data.usage)).filter(([, value]) => value !== null && value !== undefined);
        if (counts.length > 0) this.#message.usage = { ...record(this.#message.usage), ...Object.fromEntries(counts) };
        return false;
      }
      case 'message_stop':
        this.#stopped = true;
        return true;
      default:
        return false;
    }
  }

  #delta(index: number, delta: Record<string, unknown>): void {
    const block = this.#content[index];
    if (!block) return;
    if (delta.type === 'text_delta' && block.type === 'text') {
      block.text = text(block.text) + text(delta.text);
      this.#text.add(text(delta.text));
    } else if (delta.type === 'input_json_delta' && this.#json.has(index)) {
      this.#json.set(index, (this.#json.get(index) ?? '') + text(delta.partial_json));
    } else if (delta.type === 'thinking_delta' && block.type === 'thinking') {
      block.thinking = text(block.thinking) + text(delta.thinking);
    } else if (delta.type === 'signature_delta' && block.type === 'thinking') {
      block.signature = text(delta.signature);
    }
  }

  // The tool input is the JSON its deltas spelled (none: the start block's own input). JSON
  // that does not parse (cut off by max_tokens) stays raw text, as the other protocols keep it.
  #closeInput(index: number): void {
    const json = this.#json.get(index);
    const block = this.#content[index];
    this.#json.delete(index);
    if (json === undefined || json === '' || !block) return;
    try {
      block.input = JSON.parse(json) as unknown;
    } catch {
      block.input = json;
    }
  }

  finish(): ModelResult {
    if (!this.#message || !this.#stopped) throw streamEndedEarly(this.#request, 'message_stop');
    for (const index of [...this.#json.keys()]) this.#closeInput(index);
    const message = { ...this.#message, content: this.#content.filter((block) => block !== undefined) };
    return this.#text.settle(parseVendorBResponse(this.#request, message));
  }

  /** A non-streamed answer: the whole text as one piece. */
  whole(body: unknown): ModelResult {
    return this.#text.settle(parseVendorBResponse(this.#request, body));
  }
}

/**
 * Settings → parameters: `maxTokens` → `max_tokens` (the ceiling for thinking and text
 * together), `thinking: adaptive` → `thinking: {type: "adaptive"}` (`disabled` sends no
 * `thinking`, the API's default), `effort` → `output_config: {effort}` verbatim (low, medium,
 * high, xhigh, max; effort applies with or without thinking). Prompt caching: see `cacheBreakpoints`.
 */
export function buildVendorBRequest(request: ModelRequest): Record<string, unknown> {
  const settings = parseStored(VendorBSettings, request.settings, 'settings');
  const tools: Block[] = request.tools.map((tool) => ({ name: tool.name, description: tool.description, input_schema: tool.inputSchema }));
  const system: Block[] = request.systemPrompt !== '' ? [{ type: 'text', text: request.systemPrompt }] : [];
  const { out, summary } = messages(request);
  cacheBreakpoints(system, tools, out, summary);
  return {
    model: request.model,
    max_tokens: settings.maxTokens,
    stream: true,
    ...(system.length > 0 ? { system } : {}),
    messages: out,
    ...(tools.length > 0 ? { tools } : {}),
    ...(settings.thinking === 'adaptive' ? { thinking: { type: 'adaptive' } } : {}),
    output_config: { effort: settings.effort },
  };
}

type Block = Record<string, unknown>;
type Message = { role: 'user' | 'assistant'; content: Block[] };

const EPHEMERAL = { type: 'ephemeral' } as const;

/**
 * Anthropic caches a prompt prefix only up to a block carrying `cache_control` (at most four in
 * a request; the cache covers tools, then system, then messages, in that order). The stable
 * prefix gets up to three breakpoints, one spare:
 * 1. the system prompt, sent as one text block (its breakpoint caches the tools with it), or,
 *    without a system prompt, the last tool;
 * 2. the compaction summary's text block, which stays the same until the next compaction;
 * 3. the last block of the newest message (the newest turn: its user text or its tool results),
 *    so the next turn reads the whole conversation so far from the cache.
 * Never on a thinking block (the API refuses it) nor on an empty text or tool result; a newest
 * message that ends in one marks its last block that can carry it. Blocks are replaced, never
 * changed, as replay blocks belong to the caller.
 */
function cacheBreakpoints(system: Block[], tools: Block[], out: Message[], summary: Block | null): void {
  const mark = (blocks: Block[], index: number) => {
    blocks[index] = { ...blocks[index], cache_control: EPHEMERAL };
  };
  if (system.length > 0) mark(system, system.length - 1);
  else if (tools.length > 0) mark(tools, tools.length - 1);
  for (const message of out) {
    const index = summary ? message.content.indexOf(summary) : -1;
    if (index >= 0) mark(message.content, index);
  }
  // The summary may itself be the newest message's last block: one breakpoint, not two.
  const newest = out.at(-1)?.content ?? [];
  const last = newest.findLastIndex(cacheable);
  if (last >= 0 && newest[last]?.cache_control === undefined) mark(newest, last);
}

const cacheable = (block: Block) =>
  block.type !== 'thinking' &&
  block.type !== 'redacted_thinking' &&
  !(block.type === 'text' && block.text === '') &&
  !(block.type === 'tool_result' && block.content === '');

// The API wants alternating roles, so consecutive same-role entries (several tool results, a
// tool result then the user's next text) merge into one message, tool_result blocks first.
// `summary` is the compaction summary's text block, when the transcript has one.
function messages(request: ModelRequest): { out: Message[]; summary: Block | null } {
  const out: Message[] = [];
  let summary: Block | null = null;
  const push = (role: Message['role'], blocks: Block[]) => {
    if (blocks.length === 0) return;
    const last = out.at(-1);
    if (last?.role === role) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  };
  for (const message of request.messages) {
    if (message.role === 'user') {
      const block = { type: 'text', text: message.text };
      if (message.summary === true && message.text !== '') summary = block;
      push('user', message.text === '' ? [] : [block]);
    } else if (message.role === 'tool') push('user', [toolResult(message.toolCallId, message.result, message.isError)]);
    else {
      push('assistant', [
        // Signed thinking blocks must lead the assistant turn they came from.
        ...((replayItems(request, message.replay) ?? []) as Block[]),
        ...(message.text === '' ? [] : [{ type: 'text', text: message.text }]),
        ...message.toolCalls.map((call) => ({ type: 'tool_use', id: call.id, name: call.name, input: toolInput(call) })),
      ]);
    }
  }
  return { out, summary };
}

function toolResult(toolUseId: string, result: unknown, isError: boolean) {
  const content = typeof result === 'string' ? result : JSON.stringify(result ?? null);
  return { type: 'tool_result', tool_use_id: toolUseId, content, ...(isError ? { is_error: true } : {}) };
}

// `input` must be an object; arguments that never parsed go back under a neutral key.
function toolInput(call: ModelToolCall): unknown {
  const value = call.arguments;
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : { arguments: call.argumentsText };
}

const FINISH: Record<string, FinishReason> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  tool_use: 'tool_calls',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  refusal: 'content_filter',
  pause_turn: 'other',
};

/** Reads `content` blocks (text, tool_use, thinking), `stop_reason` and `usage`. */
export function parseVendorBResponse(request: ModelRequest, answer: unknown): ModelResult {
  const body = record(answer);
  noteResponseModel(body.model);
  if (!Array.isArray(body.content)) throw modelError('provider_invalid_response', 'The vendor_b provider answered without a content list');
  const texts: string[] = [];
  const thinking: string[] = [];
  const toolCalls: ModelToolCall[] = [];
  const replay: unknown[] = [];
  for (const block of body.content.map(record)) {
    if (block.type === 'text') texts.push(text(block.text));
    else if (block.type === 'tool_use') {
      const argumentsText = JSON.stringify(block.input ?? {});
      toolCalls.push({ id: text(block.id), name: text(block.name), arguments: block.input ?? {}, argumentsText });
    } else if (block.type === 'thinking') {
      thinking.push(text(block.thinking));
      replay.push(block);
    } else if (block.type === 'redacted_thinking') replay.push(block);
  }
  const raw = record(body.usage);
  const cacheRead = tokens(raw.cache_read_input_tokens);
  const cacheWrite = tokens(raw.cache_creation_input_tokens);
  const stop = text(body.stop_reason);
  return {
    text: texts.join(''),
    toolCalls,
    finishReason: (Object.hasOwn(FINISH, stop) ? FINISH[stop] : undefined) ?? (toolCalls.length > 0 ? 'tool_calls' : 'other'),
    providerFinishReason: finishText(stop),
    // Anthropic's input_tokens excludes cached tokens; the contract counts all input.
    usage: usage(tokens(raw.input_tokens) + cacheRead + cacheWrite, tokens(raw.output_tokens), cacheRead, cacheWrite),
    thinking: joinThinking(thinking),
    replay: replayOf(request, replay),
  };
}

/**
 * Anthropic error body (and stream `error` event): `{type: "error", error: {type, message}}`;
 * an `invalid_request_error` "prompt is too long: …" is the overflow.
 */
export function readVendorBError(body: unknown): VendorErrorDetail {
  const error = record(record(body).error);
  return { message: text(error.message) || undefined, code: text(error.type) || undefined, contextOverflow: CONTEXT_OVERFLOW.anthropic(error) };
}
