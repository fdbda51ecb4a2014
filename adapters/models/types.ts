/**
 * The one interface every model provider adapter implements: a normalized request (system
 * prompt, transcript, tools, the preset's settings) in, a normalized result out. Adapters speak
 * each vendor's real wire protocol at a configurable base URL; the run workflow never sees a
 * vendor format.
 */

import type { ModelProviderType } from '../../domain/model-catalog/types.ts';
import type { ModelToolCall } from '../../domain/runs/transcript.ts';

export type ProviderType = ModelProviderType;

/** A JSON Schema object as published in the agent version (schema version 1). */
export type JsonObjectSchema = Record<string, unknown>;

export type ModelTool = { name: string; description: string; inputSchema: JsonObjectSchema };

export type { ModelToolCall };

/**
 * Opaque vendor state that an assistant turn must carry back, unchanged, to the same model in
 * later requests: OpenAI reasoning items (encrypted), Anthropic thinking blocks (signed), Gemini
 * parts with thought signatures (Gemini 3 refuses a replayed function call without one).
 * Store it with the assistant message; it is never shown in messages, events or webhooks.
 * Adapters ignore it when the provider type or model differs (signatures do not transfer).
 */
export type ModelReplay = { providerType: ProviderType; model: string; items: unknown[] };

/** Transcript entries in model-neutral form, oldest first. */
export type ModelMessage =
  /**
   * `summary`: the runtime's summary of the earlier conversation (context compaction), sent as
   * the first user message in place of what it covers; adapters may mark it cacheable.
   */
  | { role: 'user'; text: string; summary?: boolean }
  | { role: 'assistant'; text: string; toolCalls: ModelToolCall[]; replay?: ModelReplay | null }
  | { role: 'tool'; toolCallId: string; toolName: string; result: unknown; isError: boolean };

export type ModelRequest = {
  providerType: ProviderType;
  baseUrl: string;
  apiKey: string;
  /** The vendor's model id (the catalog id, without the `<providerType>/` prefix). */
  model: string;
  /** The preset's stored settings (vendor_a/b/c) — complete, defaults applied. */
  settings: Record<string, unknown> | null;
  /** The preset's routing policy (gateway only). */
  routing: Record<string, unknown>;
  systemPrompt: string;
  messages: ModelMessage[];
  tools: ModelTool[];
  /**
   * A stable key for the conversation (the session id): vendors that route prompt caches by a
   * key (OpenAI `prompt_cache_key`) get it, so every turn of a session hits the same cache.
   */
  promptCacheKey?: string;
  /** Aborts the HTTP request (activity cancellation, attempt deadline). */
  signal?: AbortSignal;
  /**
   * Called synchronously while the provider's stream arrives (every adapter streams).
   * `{kind: 'text'}` carries each piece of the answer's visible text, in order: their
   * concatenation is exactly the result's `text` (thinking/reasoning text and tool-call
   * arguments are never text). `{kind: 'chunk'}` comes at least once for every stream event
   * received, keep-alive comments and pings included (for heartbeats; cheap to call). Nothing is
   * reported after the call settles. When the call fails, the text reported so far belongs to no
   * result (a retried attempt reports again from the start). A provider that answers one JSON
   * body instead of a stream yields one chunk, then its text. If `onStream`
   * throws, the request is aborted and the call rejects with that very exception (not a
   * `ModelInvocationError`): it means the caller gave up.
   */
  onStream?: (event: ModelStreamEvent) => void;
};

/** What an adapter reports while the provider's stream arrives (see `ModelRequest.onStream`). */
export type ModelStreamEvent = { kind: 'text'; text: string } | { kind: 'chunk' };

export type FinishReason = 'stop' | 'tool_calls' | 'length' | 'content_filter' | 'error' | 'other';

export type ModelUsage = { inputTokens: number; outputTokens: number; cacheReadTokens: number; cacheWriteTokens: number };

export type ModelResult = {
  text: string;
  toolCalls: ModelToolCall[];
  finishReason: FinishReason;
  /** The vendor's own finish/stop reason, bounded to 200 characters. */
  providerFinishReason: string | null;
  usage: ModelUsage;
  /** Provider reasoning/thinking text when returned: for debug records only, never the transcript. */
  thinking: string | null;
  /** Vendor state to store on the assistant message and send back next turn (see `ModelReplay`). */
  replay?: ModelReplay | null;
};

/**
 * A failed invocation. `retryable` is true for timeouts, connection failures, 429 and 5xx;
 * false for rejected credentials, invalid requests (including a schema the provider refuses)
 * and content the provider refuses. Messages are safe to store: never the API key, never more
 * than 500 characters of vendor text.
 */
export class ModelInvocationError extends Error {
  readonly errorCode: string;
  readonly retryable: boolean;
  readonly httpStatus: number | null;
  readonly providerFinishReason: string | null;
  readonly usage: ModelUsage | null;

  constructor(input: {
    errorCode: string;
    message: string;
    retryable: boolean;
    httpStatus?: number | null;
    providerFinishReason?: string | null;
    usage?: ModelUsage | null;
  }) {
    super(input.message);
    this.name = 'ModelInvocationError';
    this.errorCode = input.errorCode;
    this.retryable = input.retryable;
    this.httpStatus = input.httpStatus ?? null;
    this.providerFinishReason = input.providerFinishReason ?? null;
    this.usage = input.usage ?? null;
  }
}

export type ModelAdapter = (request: ModelRequest) => Promise<ModelResult>;
