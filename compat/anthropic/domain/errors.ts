import type { ErrorCode } from '../../../domain/errors.ts';

/** The `error.type` and status the Anthropic SDK maps to its error classes (docs/decisions/anthropic-compat-errors.md). */
export type CompatErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'conflict_error'
  | 'rate_limit_error'
  | 'request_too_large'
  | 'api_error'
  | 'memory_precondition_failed_error'
  | 'memory_path_conflict_error';

export type CompatError = { status: 400 | 401 | 403 | 404 | 409 | 413 | 429 | 500 | 503; type: CompatErrorType; shouldRetry: boolean | null };

/**
 * Our error codes as the SDK's: status, `error.type`, and whether to send `x-should-retry`.
 * Every 409 here is a semantic conflict (a stale `version`, a duplicate result): retrying the
 * same request cannot succeed, so the SDK is told not to (it retries 409s by default).
 */
export function compatErrorOf(code: ErrorCode): CompatError {
  switch (code) {
    case 'bad_request':
      return { status: 400, type: 'invalid_request_error', shouldRetry: null };
    case 'unauthenticated':
      return { status: 401, type: 'authentication_error', shouldRetry: null };
    case 'forbidden':
      return { status: 403, type: 'permission_error', shouldRetry: null };
    case 'not_found':
      return { status: 404, type: 'not_found_error', shouldRetry: null };
    case 'conflict':
    case 'idempotency_conflict':
      return { status: 409, type: 'conflict_error', shouldRetry: false };
    case 'cursor_expired':
      // Not raised by the compatible API (its lists page over what is kept); a 400 is the SDK's nearest class.
      return { status: 400, type: 'invalid_request_error', shouldRetry: null };
    case 'rate_limited':
      return { status: 429, type: 'rate_limit_error', shouldRetry: null };
    case 'service_unavailable':
      return { status: 503, type: 'api_error', shouldRetry: null };
    case 'internal_error':
      return { status: 500, type: 'api_error', shouldRetry: null };
  }
}

/** The SDK's error body: `{type: "error", error: {type, message, details?}, request_id}`. */
export function compatErrorBody(
  type: CompatErrorType,
  message: string,
  requestId: string,
  details?: Record<string, unknown>,
  fields: Record<string, unknown> = {},
) {
  return {
    type: 'error' as const,
    error: { type, message, ...fields, ...(details && Object.keys(details).length > 0 ? { details } : {}) },
    request_id: requestId,
  };
}
