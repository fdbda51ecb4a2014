import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import {
  DomainError,
  RateLimitedError,
  ServiceUnavailableError,
  UnauthenticatedError,
  ValidationError,
  type ErrorCode,
  type ErrorDetails,
} from '../domain/errors.ts';
import { errorCodes, isDatabaseUnavailable, isUnstorableText } from '../services/kernel/database-errors.ts';
import type { AppEnv } from './env.ts';
import { metrics } from '../services/kernel/metrics/index.ts';

/** The one mapping from public error codes to HTTP statuses (spec 3 "Codes and statuses"). */
export function statusForCode(code: ErrorCode): ContentfulStatusCode {
  switch (code) {
    case 'bad_request':
      return 400;
    case 'unauthenticated':
      return 401;
    case 'forbidden':
      return 403;
    case 'not_found':
      return 404;
    case 'conflict':
    case 'idempotency_conflict':
      return 409;
    case 'cursor_expired':
      return 410;
    case 'rate_limited':
      return 429;
    case 'service_unavailable':
      return 503;
    case 'internal_error':
      return 500;
  }
}

export type ErrorEnvelope = {
  error: { code: ErrorCode; message: string; requestId: string; details?: ErrorDetails };
};

export function renderError(c: Context<AppEnv>, code: ErrorCode, message: string, details?: ErrorDetails): Response {
  const requestId = c.get('requestId');
  const safe = safeError(message, details);
  const body: ErrorEnvelope = { error: { code, message: safe.message, requestId, ...(safe.details ? { details: safe.details } : {}) } };
  return c.json(body, statusForCode(code));
}

/** What any thrown error amounts to publicly (logged when it is a failure of ours). */
export function domainErrorOf(error: Error, c: Context<AppEnv>): DomainError {
  const domain = error instanceof DomainError ? error : fromDatabaseError(c, error);
  if (domain) {
    if (domain.code === 'internal_error') logFailure(c, domain);
    return domain;
  }
  if (error instanceof HTTPException && error.status < 500) {
    // Hono's own 4xx (for example a body over the size limit) keep the envelope.
    return error.status === 401 ? new UnauthenticatedError(error.message || 'Unauthenticated') : new ValidationError(error.message || 'Bad request');
  }
  logFailure(c, error);
  return new DomainError('internal_error', 'An internal error occurred');
}

/** `app.onError`: domain errors render as themselves; anything else is a generic 500. */
export function handleError(error: Error, c: Context<AppEnv>): Response {
  const domain = domainErrorOf(error, c);
  countRateLimited(domain);
  if (domain instanceof ServiceUnavailableError || domain instanceof RateLimitedError) c.header('Retry-After', String(domain.retryAfterSeconds));
  return renderError(c, domain.code, domain.message, domain.details);
}

/** A 429 counts by the limit that refused (`details.limit`: a fixed name, never a caller's value). */
export function countRateLimited(domain: DomainError): void {
  if (domain instanceof RateLimitedError) metrics.rateLimited.inc({ limit: typeof domain.details?.limit === 'string' ? domain.details.limit : 'unknown' });
}

/** An error's message and details as they may leave: without the input valibot echoes. */
export function safeError(message: string, details?: ErrorDetails): { message: string; details?: ErrorDetails } {
  return { message: withoutReceivedValue(message), ...(details ? { details: withoutReceivedValues(details) } : {}) };
}

/**
 * Database failures that are not bugs, as the domain errors they amount to (their messages name
 * no SQL): text PostgreSQL cannot store is the caller's input (400); an unreachable database is
 * an outage worth retrying (503 with `Retry-After`, docs/decisions/service-unavailable.md).
 */
function fromDatabaseError(c: Context<AppEnv>, error: Error): DomainError | null {
  if (isUnstorableText(error)) return new ValidationError('The request contains text that cannot be stored (a NUL character)');
  if (!isDatabaseUnavailable(error)) return null;
  c.get('logger').warn('request failed: the database is unavailable', { requestId: c.get('requestId'), codes: errorCodes(error) });
  return new ServiceUnavailableError('The database is unavailable; retry shortly');
}

function logFailure(c: Context<AppEnv>, error: Error) {
  c.get('logger').error('request failed', { err: error, requestId: c.get('requestId') });
}

export function handleNotFound(c: Context<AppEnv>): Response {
  return renderError(c, 'not_found', `No route for ${c.req.method} ${c.req.path}`);
}

/**
 * valibot's default messages end with `but received <the input>`, and services pass such
 * messages on. The input may be a credential (an API key, a signing secret), so it is cut here,
 * where every error response is rendered.
 */
function withoutReceivedValue(message: string): string {
  return message.replace(/ but received .*$/s, '');
}

function withoutReceivedValues(details: ErrorDetails): ErrorDetails {
  const issues = details.issues;
  if (!Array.isArray(issues)) return details;
  return {
    ...details,
    issues: issues.map((issue: { message?: unknown }) =>
      typeof issue.message === 'string' ? { ...issue, message: withoutReceivedValue(issue.message) } : issue,
    ),
  };
}
