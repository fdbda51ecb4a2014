import { VendorBSettings } from '../../../domain/model-presets/settings.ts';
import { modelError, type VendorErrorDetail } from '../errors.ts';
import { joinUrl, postJson } from '../chat-http.ts';
import { finishText, joinThinking, parseStored, record, replayItems, replayOf, text, tokens, usage } from '../shared.ts';
import type { FinishReason, ModelAdapter, ModelRequest, ModelResult, ModelToolCall } from '../types.ts';

/** The Messages API version header every request carries. */
export const ANTHROPIC_VERSION = '2023-06-01';

/** vendor_b = Anthropic Messages API: `POST {base}/v1/messages` with `x-api-key`. */
export const vendorBAdapter: ModelAdapter = async (request) => {
  const headers = { 'x-api-key': request.apiKey, 'anthropic-version': ANTHROPIC_VERSION };
  const answer = await postJson(request, joinUrl(request.baseUrl, '/v1/messages'), headers, buildVendorBRequest(request), readVendorBError);
  return parseVendorBResponse(request, answer);
};

/**
 * Settings → parameters: `maxTokens` → `max_tokens` (the ceiling for thinking and text
 * together), `thinking: adaptive` → `thinking: {type: "adaptive"}` (`disabled` sends no
 * `thinking`, the API's default), `effort` → `output_config: {effort}` verbatim (low, medium,
 * high, xhigh, max; effort applies with or without thinking).
 */
export function buildVendorBRequest(request: ModelRequest): Record<string, unknown> {
  const settings = parseStored(VendorBSettings, request.settings, 'settings');
  return {
    model: request.model,
    max_tokens: settings.maxTokens,
    ...(request.systemPrompt !== '' ? { system: request.systemPrompt } : {}),
    messages: messages(request),
    ...(request.tools.length > 0 ? { tools: request.tools.map((tool) => ({ name: tool.name, description: tool.description, input_schema: tool.inputSchema })) } : {}),
    ...(settings.thinking === 'adaptive' ? { thinking: { type: 'adaptive' } } : {}),
    output_config: { effort: settings.effort },
  };
}

type Message = { role: 'user' | 'assistant'; content: unknown[] };

// The API wants alternating roles, so consecutive same-role entries (several tool results, a
// tool result then the user's next text) merge into one message, tool_result blocks first.
function messages(request: ModelRequest): Message[] {
  const out: Message[] = [];
  const push = (role: Message['role'], blocks: unknown[]) => {
    if (blocks.length === 0) return;
    const last = out.at(-1);
    if (last?.role === role) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  };
  for (const message of request.messages) {
    if (message.role === 'user') push('user', message.text === '' ? [] : [{ type: 'text', text: message.text }]);
    else if (message.role === 'tool') push('user', [toolResult(message.toolCallId, message.result, message.isError)]);
    else {
      push('assistant', [
        // Signed thinking blocks must lead the assistant turn they came from.
        ...(replayItems(request, message.replay) ?? []),
        ...(message.text === '' ? [] : [{ type: 'text', text: message.text }]),
        ...message.toolCalls.map((call) => ({ type: 'tool_use', id: call.id, name: call.name, input: toolInput(call) })),
      ]);
    }
  }
  return out;
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
    finishReason: FINISH[stop] ?? (toolCalls.length > 0 ? 'tool_calls' : 'other'),
    providerFinishReason: finishText(stop),
    // Anthropic's input_tokens excludes cached tokens; the contract counts all input.
    usage: usage(tokens(raw.input_tokens) + cacheRead + cacheWrite, tokens(raw.output_tokens), cacheRead, cacheWrite),
    thinking: joinThinking(thinking),
    replay: replayOf(request, replay),
  };
}

/** Anthropic error body: `{type: "error", error: {type, message}}`. */
export function readVendorBError(body: unknown): VendorErrorDetail {
  const error = record(record(body).error);
  return { message: text(error.message) || undefined, code: text(error.type) || undefined };
}
