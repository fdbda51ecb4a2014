import { ModelInvocationError, type ModelUsage, type ProviderType } from './types.ts';

/**
 * Stable `errorCode`s of `ModelInvocationError`, with whether the workflow may retry the
 * attempt (spec 3: timeouts and transient provider failures are retried; a refused schema,
 * credential or content fails the invocation visibly).
 */
export const MODEL_ERROR_CODES = {
  /** The attempt deadline passed (our AbortSignal timeout, or the vendor's 408). */
  provider_timeout: true,
  /** DNS, connection refused or reset: no HTTP answer, or an answer (stream) that broke off. */
  provider_unreachable: true,
  /** 429 (except an exhausted quota). */
  provider_rate_limited: true,
  /**
   * 5xx, Anthropic 529 overloaded (also as an error event inside the stream), or a response that
   * reports a server-side failure.
   */
  provider_server_error: true,
  /**
   * Not JSON, too large, or missing the fields the protocol promises; a stream that ended
   * (cleanly) before its final event.
   */
  provider_invalid_response: true,
  /** 401/403, or Gemini's 400 API_KEY_INVALID: the stored key is wrong. */
  provider_rejected_credential: false,
  /** Billing: OpenAI 429 insufficient_quota, OpenRouter 402. Retrying will not help. */
  provider_quota_exhausted: false,
  /** Other 4xx: bad parameters, unknown model, a published tool schema the vendor refuses. */
  provider_rejected_request: false,
  /**
   * The request's input passed the model's context window (the vendor's own overflow answer,
   * `CONTEXT_OVERFLOW` below; the message keeps the sizes the vendor named). Not retried as it
   * is: the runtime compacts the conversation and retries the turn.
   */
  provider_context_overflow: false,
  /** The vendor refused the input itself (prompt blocked, moderation). */
  provider_refused_content: false,
  /** The preset's stored settings or routing do not validate (a bug or a stale row). */
  invalid_model_settings: false,
  /** The caller's signal aborted for a reason other than a timeout (activity cancellation). */
  provider_call_cancelled: false,
} as const;

export type ModelErrorCode = keyof typeof MODEL_ERROR_CODES;

const MAX_VENDOR_TEXT = 500;

/** Builds the error with `retryable` taken from the code table. */
export function modelError(
  errorCode: ModelErrorCode,
  message: string,
  extra: { httpStatus?: number | null; providerFinishReason?: string | null; usage?: ModelUsage | null } = {},
): ModelInvocationError {
  return new ModelInvocationError({ errorCode, message, retryable: MODEL_ERROR_CODES[errorCode], ...extra });
}

/**
 * Vendor text made safe to store: the API key replaced wherever it appears (vendors echo it in
 * auth errors), whitespace collapsed, at most 500 characters.
 */
export function safeVendorText(text: string, apiKey: string): string {
  let safe = text;
  if (apiKey.length >= 4) safe = safe.split(apiKey).join('[redacted]');
  safe = safe.replace(/\s+/g, ' ').trim();
  return safe.length > MAX_VENDOR_TEXT ? `${safe.slice(0, MAX_VENDOR_TEXT - 1)}…` : safe;
}

/**
 * What an adapter reads from a vendor's error body: its message and code/type/status, and
 * whether it is the vendor's context-overflow answer (the reader decides, with `CONTEXT_OVERFLOW`).
 */
export type VendorErrorDetail = { message?: string; code?: string; contextOverflow?: boolean };

// The documented wording of the overflow answers that have no code of their own.
const PROMPT_TOO_LONG = /prompt is too long: \d+ tokens > \d+ maximum|input length and `?max_tokens`? exceed context limit: \d+/i;
const INPUT_TOKEN_COUNT = /input token count \(\d+\) exceeds the maximum number of tokens allowed \(\d+\)/i;
const MAXIMUM_CONTEXT_LENGTH = /maximum context length is \d+ tokens/i;

const errorText = (error: Record<string, unknown>) => (typeof error.message === 'string' ? error.message : '');

/**
 * Each vendor's real context-overflow answer, recognised by the vendor's code where it has one
 * and by its documented message otherwise, given the vendor's error object (the `error` of its
 * body or stream event). The protocols' error readers call these; the gateway's also applies
 * them to the upstream body OpenRouter forwards in `error.metadata.raw`.
 */
export const CONTEXT_OVERFLOW = {
  /**
   * OpenAI, HTTP 400 or in the stream (an `error` event, a failed response's `error`): `code:
   * "context_length_exceeded"` ("Your input exceeds the context window of this model…"; chat
   * completions: "This model's maximum context length is 128000 tokens. However, your messages
   * resulted in 130000 tokens…").
   */
  openai: (error: Record<string, unknown>) => error.code === 'context_length_exceeded',
  /**
   * Anthropic, HTTP 400: `invalid_request_error` "prompt is too long: 208310 tokens > 200000
   * maximum" (and the older "input length and `max_tokens` exceed context limit: 197000 + 8192 >
   * 200000"). Its type alone is any bad request.
   */
  anthropic: (error: Record<string, unknown>) => error.type === 'invalid_request_error' && PROMPT_TOO_LONG.test(errorText(error)),
  /**
   * Gemini, HTTP 400: `INVALID_ARGUMENT` "The input token count (1200000) exceeds the maximum
   * number of tokens allowed (1048576)." Its status alone is any bad request.
   */
  gemini: (error: Record<string, unknown>) => error.status === 'INVALID_ARGUMENT' && INPUT_TOKEN_COUNT.test(errorText(error)),
  /**
   * OpenRouter, HTTP 400 (or an error chunk): "This endpoint's maximum context length is 32768
   * tokens. However, you requested about 40000 tokens…" (`code` is the status, 400). The same
   * wording comes from the OpenAI-compatible upstreams it routes to.
   */
  openrouter: (error: Record<string, unknown>) => MAXIMUM_CONTEXT_LENGTH.test(errorText(error)),
};

/**
 * Maps a non-2xx answer to a `ModelInvocationError`. `code` lets vendor-specific answers
 * override the status mapping (Gemini's API_KEY_INVALID on a 400, OpenAI's insufficient_quota
 * on a 429). Credential failures never carry vendor text, which may echo part of the key.
 */
export function httpError(providerType: ProviderType, status: number, detail: VendorErrorDetail, apiKey: string): ModelInvocationError {
  const errorCode = codeForStatus(providerType, status, detail);
  const label = detail.code ? ` (${safeVendorText(detail.code, apiKey).slice(0, 80)})` : '';
  const text = errorCode === 'provider_rejected_credential' || !detail.message ? '' : `: ${safeVendorText(detail.message, apiKey)}`;
  return modelError(errorCode, `The ${providerType} provider answered HTTP ${status}${label}${text}`, { httpStatus: status });
}

/**
 * Maps an error the vendor reported inside a 200 stream (Anthropic `event: error`, OpenAI's
 * `error` event, a Gemini or OpenRouter chunk carrying `error`) like the HTTP answer it stands
 * for: `status` when the vendor gives one, otherwise the status its code names (overloaded →
 * 529, rate limit → 429, ...; an unknown code is a server error, retryable). Same redaction
 * and bounds as `httpError`; `httpStatus` is the vendor's numeric code or null.
 */
export function streamError(
  providerType: ProviderType,
  detail: VendorErrorDetail & { status?: number | null },
  apiKey: string,
  extra: { providerFinishReason?: string | null; usage?: ModelUsage | null } = {},
): ModelInvocationError {
  const status = detail.status ?? statusForCode(detail.code ?? '');
  const errorCode = codeForStatus(providerType, status, detail);
  const label = detail.code ? ` (${safeVendorText(detail.code, apiKey).slice(0, 80)})` : '';
  const text = errorCode === 'provider_rejected_credential' || !detail.message ? '' : `: ${safeVendorText(detail.message, apiKey)}`;
  return modelError(errorCode, `The ${providerType} provider reported an error in its stream${label}${text}`, { httpStatus: detail.status ?? null, ...extra });
}

const STATUS_OF_CODE: Array<[RegExp, number]> = [
  [/overloaded/i, 529],
  [/rate.?limit|too.?many|exhausted/i, 429],
  [/billing|credit/i, 402],
  [/authentication|invalid_api_key|unauthenticated/i, 401],
  [/permission/i, 403],
  [/not.?found/i, 404],
  [/too.?large/i, 413],
  [/invalid|bad.?request|context_length/i, 400],
];

function statusForCode(code: string): number {
  return STATUS_OF_CODE.find(([pattern]) => pattern.test(code))?.[1] ?? 500;
}

function codeForStatus(providerType: ProviderType, status: number, detail: VendorErrorDetail): ModelErrorCode {
  const code = detail.code;
  if (code === 'API_KEY_INVALID') return 'provider_rejected_credential';
  if (code === 'insufficient_quota') return 'provider_quota_exhausted';
  if (status === 401) return 'provider_rejected_credential';
  // OpenRouter answers 403 when moderation flags the input; elsewhere 403 is a key without access.
  if (status === 403) return providerType === 'gateway' ? 'provider_refused_content' : 'provider_rejected_credential';
  if (status === 402) return 'provider_quota_exhausted';
  if (status === 408) return 'provider_timeout';
  if (status === 429) return 'provider_rate_limited';
  if (status >= 500) return 'provider_server_error';
  // Only a request the vendor refused for its input's size; a quota, credential or outage
  // answer keeps its own code whatever its text says.
  return detail.contextOverflow ? 'provider_context_overflow' : 'provider_rejected_request';
}
