import { curatedCapabilities } from '../../../domain/model-catalog/capabilities.ts';
import { VendorASettings } from '../../../domain/model-presets/settings.ts';
import { CONTEXT_OVERFLOW, modelError, safeVendorText, streamError, type VendorErrorDetail } from '../errors.ts';
import { eventJson, joinUrl, postStream, streamEndedEarly, type StreamEvent } from '../chat-http.ts';
import {
  finishText,
  joinThinking,
  list,
  parseStored,
  record,
  replayItems,
  replayOf,
  StreamText,
  text,
  tokens,
  toolCall,
  toolResultText,
  usage,
} from '../shared.ts';
import type { FinishReason, ModelAdapter, ModelRequest, ModelResult, ModelToolCall } from '../types.ts';
import { noteResponseModel } from '../trace.ts';

/**
 * vendor_a = OpenAI Responses API: `POST {base}/responses` with `stream: true`,
 * `Authorization: Bearer`, stateless (`store: false`), so the whole transcript is sent each turn
 * and reasoning is carried forward as encrypted reasoning items
 * (`include: ["reasoning.encrypted_content"]`).
 */
export const vendorAAdapter: ModelAdapter = async (request) => {
  const body = buildVendorARequest(request);
  const stream = new VendorAStream(request);
  const answer = await postStream(
    request,
    joinUrl(request.baseUrl, '/responses'),
    { authorization: `Bearer ${request.apiKey}` },
    body,
    readVendorAError,
    (event) => stream.push(event),
  );
  return answer.kind === 'json' ? stream.whole(answer.body) : stream.finish();
};

/**
 * Reads the Responses stream: `response.output_text.delta` and `response.refusal.delta` are the
 * visible text (a refusal is part of `text`, as in the parsed answer); the terminal event
 * (`response.completed`, `response.incomplete` or `response.failed`) carries the whole response
 * object, which `parseVendorAResponse` reads exactly as a non-streamed answer (so a failed
 * response fails the same way). An `error` event is the vendor's error (its `code` mapped like
 * the HTTP status it stands for); a stream without a terminal event is incomplete. Everything
 * else (output items, reasoning summaries, argument deltas) is in the final response too.
 */
export class VendorAStream {
  readonly #request: ModelRequest;
  readonly #text: StreamText;
  #final: unknown = null;

  constructor(request: ModelRequest) {
    this.#request = request;
    this.#text = new StreamText(request);
  }

  /** One event; true at the terminal event. */
  push(event: StreamEvent): boolean {
    if (event.data === '[DONE]') return false;
    const data = eventJson(this.#request, event.data);
    // OpenAI-compatible servers may also send a bare `{error: {...}}` (the chat completions shape).
    const type = text(data.type) || event.event || (Object.keys(record(data.error)).length > 0 ? 'error' : '');
    switch (type) {
      case 'response.output_text.delta':
      case 'response.refusal.delta':
        this.#text.add(text(data.delta));
        return false;
      case 'response.completed':
      case 'response.incomplete':
      case 'response.failed':
        this.#final = data.response ?? null;
        return true;
      case 'error': {
        // `{type: "error", code, message, param}`; some deployments nest it under `error`.
        const error = Object.keys(record(data.error)).length > 0 ? record(data.error) : data;
        throw streamError(
          'vendor_a',
          {
            message: text(error.message) || undefined,
            code: text(error.code) || (error === data ? '' : text(error.type)) || undefined,
            contextOverflow: CONTEXT_OVERFLOW.openai(error),
          },
          this.#request.apiKey,
        );
      }
      default:
        return false;
    }
  }

  finish(): ModelResult {
    if (this.#final === null) throw streamEndedEarly(this.#request, 'response.completed');
    return this.#text.settle(parseVendorAResponse(this.#request, this.#final));
  }

  /** A non-streamed answer: the whole text as one piece. */
  whole(body: unknown): ModelResult {
    return this.#text.settle(parseVendorAResponse(this.#request, body));
  }
}

/**
 * Settings → parameters. `promptCacheKey` → `prompt_cache_key`: OpenAI caches prompt prefixes by
 * itself and routes by this key, so every turn of a session reaches the same cache (nothing to
 * mark; cached reads come back as `usage.input_tokens_details.cached_tokens`, and OpenAI neither
 * reports nor charges cache writes). `effort` is sent verbatim (the API's values are the spec's: none, low,
 * medium, high, xhigh, max; the catalog refuses a level a model lacks). `summary` →
 * `reasoning.summary`, `verbosity` → `text.verbosity`, `textFormat` → `text.format.type`.
 * `mode: pro` selects OpenAI's `-pro` sibling model (`gpt-5.2` → `gpt-5.2-pro`), which is how
 * OpenAI ships its higher-compute tier. Models the curated table marks as non-reasoning
 * (gpt-4.1, gpt-4o) get neither `reasoning` nor `verbosity`, which they reject.
 */
export function buildVendorARequest(request: ModelRequest): Record<string, unknown> {
  const settings = parseStored(VendorASettings, request.settings, 'settings');
  const model = settings.mode === 'pro' && !request.model.endsWith('-pro') ? `${request.model}-pro` : request.model;
  const reasoning = curatedCapabilities('vendor_a', request.model).reasoning !== false;
  return {
    model,
    stream: true,
    instructions: request.systemPrompt,
    input: inputItems(request),
    tools: request.tools.map((tool) => ({ type: 'function', name: tool.name, description: tool.description, parameters: tool.inputSchema, strict: false })),
    store: false,
    ...(request.promptCacheKey ? { prompt_cache_key: request.promptCacheKey } : {}),
    ...(reasoning
      ? {
          reasoning: settings.effort === 'none' ? { effort: 'none' } : { effort: settings.effort, summary: settings.summary },
          include: ['reasoning.encrypted_content'],
          text: { format: { type: settings.textFormat }, verbosity: settings.verbosity },
        }
      : { text: { format: { type: settings.textFormat } } }),
  };
}

function inputItems(request: ModelRequest): unknown[] {
  const items: unknown[] = [];
  for (const message of request.messages) {
    if (message.role === 'user') items.push({ type: 'message', role: 'user', content: message.text });
    else if (message.role === 'tool') items.push({ type: 'function_call_output', call_id: message.toolCallId, output: toolResultText(message) });
    else {
      // Reasoning items go back first: each must precede the items that followed it.
      items.push(...(replayItems(request, message.replay) ?? []));
      if (message.text !== '') items.push({ type: 'message', role: 'assistant', content: message.text });
      for (const call of message.toolCalls) items.push({ type: 'function_call', call_id: call.id, name: call.name, arguments: call.argumentsText });
    }
  }
  return items;
}

/** Reads `output` items, `usage` and `status` (+ `incomplete_details.reason`). */
export function parseVendorAResponse(request: ModelRequest, answer: unknown): ModelResult {
  const body = record(answer);
  noteResponseModel(body.model);
  if (!Array.isArray(body.output)) throw modelError('provider_invalid_response', 'The vendor_a provider answered without an output list');
  const rawUsage = record(body.usage);
  const usageOut = usage(tokens(rawUsage.input_tokens), tokens(rawUsage.output_tokens), tokens(record(rawUsage.input_tokens_details).cached_tokens), 0);
  const status = text(body.status);
  if (status === 'failed') {
    const error = record(body.error);
    if (CONTEXT_OVERFLOW.openai(error)) {
      const detail = text(error.message) ? `: ${safeVendorText(text(error.message), request.apiKey)}` : '';
      throw modelError('provider_context_overflow', `The vendor_a response failed (context_length_exceeded)${detail}`, {
        providerFinishReason: 'failed',
        usage: usageOut,
      });
    }
    const rateLimited = text(error.code) === 'rate_limit_exceeded';
    throw modelError(
      rateLimited ? 'provider_rate_limited' : 'provider_server_error',
      `The vendor_a response failed${error.code ? ` (${text(error.code).slice(0, 80)})` : ''}`,
      {
        providerFinishReason: 'failed',
        usage: usageOut,
      },
    );
  }
  const texts: string[] = [];
  const thinking: string[] = [];
  const toolCalls: ModelToolCall[] = [];
  const replay: unknown[] = [];
  let refused = false;
  for (const item of body.output.map(record)) {
    if (item.type === 'message') {
      for (const part of list(item.content).map(record)) {
        if (part.type === 'output_text') texts.push(text(part.text));
        if (part.type === 'refusal') {
          refused = true;
          texts.push(text(part.refusal));
        }
      }
    } else if (item.type === 'function_call') {
      toolCalls.push(toolCall(text(item.call_id) || text(item.id), text(item.name), text(item.arguments)));
    } else if (item.type === 'reasoning') {
      for (const part of [...list(item.summary), ...list(item.content)].map(record)) thinking.push(text(part.text));
      if (typeof item.encrypted_content === 'string')
        replay.push({ type: 'reasoning', id: item.id, summary: list(item.summary), encrypted_content: item.encrypted_content });
    }
  }
  const incomplete = text(record(body.incomplete_details).reason);
  return {
    text: texts.join(''),
    toolCalls,
    finishReason: finishReason(status, incomplete, refused, toolCalls.length > 0),
    providerFinishReason: finishText(incomplete ? `${status}:${incomplete}` : status),
    usage: usageOut,
    thinking: joinThinking(thinking),
    replay: replayOf(request, replay),
  };
}

function finishReason(status: string, incomplete: string, refused: boolean, hasToolCalls: boolean): FinishReason {
  if (status === 'incomplete') return incomplete === 'max_output_tokens' ? 'length' : incomplete === 'content_filter' ? 'content_filter' : 'other';
  if (refused) return 'content_filter';
  if (status === 'completed') return hasToolCalls ? 'tool_calls' : 'stop';
  return 'other';
}

/** OpenAI error body: `{error: {message, type, param, code}}`; `code: context_length_exceeded` is the overflow. */
export function readVendorAError(body: unknown): VendorErrorDetail {
  const error = record(record(body).error);
  return {
    message: text(error.message) || undefined,
    code: text(error.code) || text(error.type) || undefined,
    contextOverflow: CONTEXT_OVERFLOW.openai(error),
  };
}
