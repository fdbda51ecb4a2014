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

/** What an adapter reads from a vendor's error body: its message and code/type/status. */
export type VendorErrorDetail = { message?: string; code?: string };

/**
 * Maps a non-2xx answer to a `ModelInvocationError`. `code` lets vendor-specific answers
 * override the status mapping (Gemini's API_KEY_INVALID on a 400, OpenAI's insufficient_quota
 * on a 429). Credential failures never carry vendor text, which may echo part of the key.
 */
export function httpError(providerType: ProviderType, status: number, detail: VendorErrorDetail, apiKey: string): ModelInvocationError {
  const errorCode = codeForStatus(providerType, status, detail.code);
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
  const errorCode = codeForStatus(providerType, status, detail.code);
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

function codeForStatus(providerType: ProviderType, status: number, code: string | undefined): ModelErrorCode {
  if (code === 'API_KEY_INVALID') return 'provider_rejected_credential';
  if (code === 'insufficient_quota') return 'provider_quota_exhausted';
  if (status === 401) return 'provider_rejected_credential';
  // OpenRouter answers 403 when moderation flags the input; elsewhere 403 is a key without access.
  if (status === 403) return providerType === 'gateway' ? 'provider_refused_content' : 'provider_rejected_credential';
  if (status === 402) return 'provider_quota_exhausted';
  if (status === 408) return 'provider_timeout';
  if (status === 429) return 'provider_rate_limited';
  if (status >= 500) return 'provider_server_error';
  return 'provider_rejected_request';
}
