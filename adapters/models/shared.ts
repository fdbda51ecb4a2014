import * as v from 'valibot';
import { modelError } from './errors.ts';
import type { ModelMessage, ModelReplay, ModelRequest, ModelResult, ModelToolCall, ModelUsage } from './types.ts';

/**
 * Tool-call arguments as the workflow wants them: parsed JSON when the text parses, otherwise
 * the raw text itself (the workflow answers `invalid_tool_arguments`).
 */
export function toolCall(id: string, name: string, argumentsText: string): ModelToolCall {
  let parsed: unknown = argumentsText;
  try {
    parsed = JSON.parse(argumentsText) as unknown;
  } catch {
    // keep the raw text
  }
  return { id, name, arguments: parsed, argumentsText };
}

/**
 * A tool result as text for protocols without an error flag (OpenAI, OpenRouter): strings are
 * sent as they are, other values as JSON; failures are wrapped as `{"error": ...}` so the model
 * can tell them apart.
 */
export function toolResultText(message: Extract<ModelMessage, { role: 'tool' }>): string {
  if (message.isError) return JSON.stringify({ error: message.result ?? null });
  return typeof message.result === 'string' ? message.result : JSON.stringify(message.result ?? null);
}

/** A non-negative integer token count; anything else (unreported) is 0. */
export function tokens(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
}

export function usage(inputTokens: number, outputTokens: number, cacheReadTokens: number, cacheWriteTokens: number): ModelUsage {
  return { inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens };
}

/** The contract bounds `providerFinishReason` to 200 characters. */
export function finishText(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value.slice(0, 200) : null;
}

/** Thinking fragments joined, or null when the vendor returned none. */
export function joinThinking(parts: string[]): string | null {
  const kept = parts.filter((part) => part.trim() !== '');
  return kept.length > 0 ? kept.join('\n\n') : null;
}

/** The assistant message's replay items, when they came from this provider type and model. */
export function replayItems(request: ModelRequest, replay: ModelReplay | null | undefined): unknown[] | null {
  if (!replay || replay.providerType !== request.providerType || replay.model !== request.model) return null;
  return Array.isArray(replay.items) && replay.items.length > 0 ? replay.items : null;
}

export function replayOf(request: ModelRequest, items: unknown[]): ModelReplay | null {
  return items.length > 0 ? { providerType: request.providerType, model: request.model, items } : null;
}

/** Parses the stored settings (or routing) with the domain schema, defaults applied. */
export function parseStored<T extends v.GenericSchema>(schema: T, value: unknown, what: string): v.InferOutput<T> {
  const result = v.safeParse(schema, value ?? {});
  if (result.success) return result.output;
  const issue = result.issues[0];
  const path = issue.path?.map((item) => String(item.key)).join('.') ?? '';
  throw modelError('invalid_model_settings', `The preset's stored ${what} are invalid${path ? ` at ${path}` : ''}: ${issue.message}`);
}

/** Reads a record field safely from untyped vendor JSON. */
export function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

export function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

export function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/**
 * The visible text an adapter reports through `request.onStream`, kept so that the pieces always
 * concatenate to the result's `text`: `settle` reports what the final answer holds beyond the
 * pieces already sent (a vendor that sent a part whole, without deltas) and refuses a final
 * answer that contradicts them (a retryable invalid response; the caller drops the pieces).
 */
export class StreamText {
  readonly #onStream: ModelRequest['onStream'];
  readonly #providerType: ModelRequest['providerType'];
  #sent = '';

  constructor(request: ModelRequest) {
    this.#onStream = request.onStream;
    this.#providerType = request.providerType;
  }

  /** One piece of visible text, in answer order. */
  add(piece: string): void {
    if (piece === '' || !this.#onStream) return;
    this.#sent += piece;
    this.#onStream({ kind: 'text', text: piece });
  }

  settle(result: ModelResult): ModelResult {
    if (!this.#onStream || result.text === this.#sent) return result;
    if (!result.text.startsWith(this.#sent)) {
      throw modelError('provider_invalid_response', `The ${this.#providerType} provider's final answer does not match the text it streamed`);
    }
    this.add(result.text.slice(this.#sent.length));
    return result;
  }
}
