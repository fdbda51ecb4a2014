/**
 * Domain errors know nothing of HTTP. Each carries a stable public code from spec 3 "Errors";
 * api/errors.ts maps codes to statuses. Messages are safe to show to the caller.
 */

/** Every public error code (spec 3 "Errors"), in the order the OpenAPI document lists them. */
export const ERROR_CODES = [
  'bad_request',
  'unauthenticated',
  'forbidden',
  'not_found',
  'conflict',
  'idempotency_conflict',
  'cursor_expired',
  'rate_limited',
  'service_unavailable',
  'internal_error',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export type ErrorDetails = Record<string, unknown>;

export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails | undefined;

  constructor(code: ErrorCode, message: string, details?: ErrorDetails) {
    super(message);
    this.name = 'DomainError';
    this.code = code;
    this.details = details;
  }
}

export class ValidationError extends DomainError {
  constructor(message: string, details?: ErrorDetails & { path?: string }) {
    super('bad_request', message, details);
    this.name = 'ValidationError';
  }
}

/**
 * A request body, or one part of it, is larger than a limit: `details.limit` names the limit,
 * `details.maxBytes` its figure. A `bad_request` like other malformed input (on the native API an
 * oversized body is a 400, docs/decisions/request-bodies.md); the Anthropic-compatible API
 * answers it with the SDK's 413 `request_too_large`.
 */
export class PayloadTooLargeError extends ValidationError {
  constructor(message: string, details: { limit: string; maxBytes: number; path?: string }) {
    super(message, details);
    this.name = 'PayloadTooLargeError';
  }
}

export class UnauthenticatedError extends DomainError {
  constructor(message = 'Authentication is required') {
    super('unauthenticated', message);
    this.name = 'UnauthenticatedError';
  }
}

export class ForbiddenError extends DomainError {
  constructor(message: string, details?: ErrorDetails) {
    super('forbidden', message, details);
    this.name = 'ForbiddenError';
  }
}

export class NotFoundError extends DomainError {
  constructor(message: string, details?: ErrorDetails) {
    super('not_found', message, details);
    this.name = 'NotFoundError';
  }
}

export class ConflictError extends DomainError {
  constructor(message: string, details?: ErrorDetails) {
    super('conflict', message, details);
    this.name = 'ConflictError';
  }
}

export class IdempotencyConflictError extends DomainError {
  constructor() {
    super('idempotency_conflict', 'This Idempotency-Key was already used with a different request body');
    this.name = 'IdempotencyConflictError';
  }
}

/** A failure the operator must fix (for example, missing credential encryption). */
export class InternalConfigurationError extends DomainError {
  constructor(message: string) {
    super('internal_error', message);
    this.name = 'InternalConfigurationError';
  }
}

/**
 * A dependency the request needs (an identity provider, a key set) failed for now: 503 with
 * `Retry-After`, so a client retries instead of starting over.
 */
export class ServiceUnavailableError extends DomainError {
  readonly retryAfterSeconds: number;
  constructor(message: string, retryAfterSeconds = 5) {
    super('service_unavailable', message);
    this.name = 'ServiceUnavailableError';
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/**
 * A request limit or quota of the caller is spent (docs/decisions/request-rate-limits.md):
 * 429 with `Retry-After`; `details.limit` names which one.
 */
export class RateLimitedError extends DomainError {
  readonly retryAfterSeconds: number;
  constructor(message: string, details: { limit: string }, retryAfterSeconds: number) {
    super('rate_limited', message, details);
    this.name = 'RateLimitedError';
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/**
 * An event cursor names a position whose events retention has deleted (docs/decisions/cursor-expired.md
 * ): resuming after it would skip events without a word. 410: the client starts over,
 * with `from=now` (or without a cursor, from the oldest event kept), and reconciles from the
 * resources themselves.
 */
export class CursorExpiredError extends DomainError {
  constructor(message: string, details?: ErrorDetails) {
    super('cursor_expired', message, details);
    this.name = 'CursorExpiredError';
  }
}
