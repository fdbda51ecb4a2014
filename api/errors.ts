import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { DomainError, RateLimitedError, ServiceUnavailableError, type ErrorCode, type ErrorDetails } from '../domain/errors.ts';
import { errorCodes, isDatabaseUnavailable, isUnstorableText } from '../services/database-errors.ts';
import type { AppEnv } from './env.ts';

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
  const safeDetails = details ? withoutReceivedValues(details) : undefined;
  const body: ErrorEnvelope = { error: { code, message: withoutReceivedValue(message), requestId, ...(safeDetails ? { details: safeDetails } : {}) } };
  return c.json(body, statusForCode(code));
}

/** `app.onError`: domain errors render as themselves; anything else is a generic 500. */
export function handleError(error: Error, c: Context<AppEnv>): Response {
  if (error instanceof DomainError) {
    if (error.code === 'internal_error') logFailure(c, error);
    if (error instanceof ServiceUnavailableError || error instanceof RateLimitedError) c.header('Retry-After', String(error.retryAfterSeconds));
    return renderError(c, error.code, error.message, error.details);
  }
  if (error instanceof HTTPException && error.status < 500) {
    // Hono's own 4xx (for example a body over the size limit) keep the envelope.
    return renderError(c, error.status === 401 ? 'unauthenticated' : 'bad_request', error.message || 'Bad request');
  }
  if (isUnstorableText(error)) {
    // PostgreSQL text cannot hold NUL (SQLSTATE 22021/22P05): the input is at fault, not the service.
    return renderError(c, 'bad_request', 'The request contains text that cannot be stored (a NUL character)');
  }
  if (isDatabaseUnavailable(error)) {
    // A dependency outage, not a bug: retryable, and the message names no SQL.
    c.get('logger').warn('request failed: the database is unavailable', { requestId: c.get('requestId'), codes: errorCodes(error) });
    c.header('Retry-After', String(DATABASE_RETRY_AFTER_SECONDS));
    return renderError(c, 'service_unavailable', 'The database is unavailable; retry shortly');
  }
  logFailure(c, error);
  return renderError(c, 'internal_error', 'An internal error occurred');
}

/** What a client is told to wait when the database is out: PostgreSQL restarts take seconds. */
const DATABASE_RETRY_AFTER_SECONDS = 5;

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
    issues: issues.map((issue: { message?: unknown }) => (typeof issue.message === 'string' ? { ...issue, message: withoutReceivedValue(issue.message) } : issue)),
  };
}
