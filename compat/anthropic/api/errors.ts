import type { Context } from 'hono';
import { compatErrorBody, compatErrorOf, type CompatErrorType } from '../domain/errors.ts';
import { memoryErrorType } from '../domain/memory-stores.ts';
import { PayloadTooLargeError, RateLimitedError, ServiceUnavailableError } from '../../../domain/errors.ts';
import type { AppEnv } from '../../../api/env.ts';
import { countRateLimited, domainErrorOf, safeError } from '../../../api/errors.ts';

/**
 * Any error as the Anthropic SDK expects it: its envelope, status and `request-id` header,
 * `x-should-retry: false` on semantic conflicts, `retry-after` (and `retry-after-ms`) on 429 and
 * 503. `details.error_code` selects the SDK's specific error classes.
 */
export function handleCompatError(error: Error, c: Context<AppEnv>): Response {
  const domain = domainErrorOf(error, c);
  countRateLimited(domain);
  const mapped = compatErrorOf(domain.code);
  const safe = safeError(domain.message, domain.details);
  // A size limit (api/multipart.ts) is the SDK's 413, its message naming the limit.
  if (domain instanceof PayloadTooLargeError) return renderCompat(c, 413, 'request_too_large', safe.message, safe.details);
  if (mapped.shouldRetry === false) c.header('x-should-retry', 'false');
  if (domain instanceof ServiceUnavailableError || domain instanceof RateLimitedError) {
    c.header('retry-after', String(domain.retryAfterSeconds));
    c.header('retry-after-ms', String(domain.retryAfterSeconds * 1000));
  }
  // The memory conflicts have error types of their own in the SDK, with the fields its error objects carry.
  const memory = mapped.status === 409 ? memoryErrorType(domain.details) : null;
  if (memory) return renderCompat(c, 409, memory.type as CompatErrorType, safe.message, safe.details, memory.fields);
  return renderCompat(c, mapped.status, mapped.type, safe.message, safe.details);
}

export function renderCompat(
  c: Context<AppEnv>,
  status: number,
  type: Parameters<typeof compatErrorBody>[0],
  message: string,
  details?: Record<string, unknown>,
  fields?: Record<string, unknown>,
): Response {
  const requestId = c.get('requestId');
  c.header('request-id', requestId);
  return c.json(compatErrorBody(type, message, requestId, details, fields), status as 400);
}
