/** Webhook limits of spec 3 "Limits" and "Webhook delivery". */

export const MAX_WEBHOOKS_PER_PROJECT = 20;
export const MAX_BATCH_EVENTS = 100;
/** Soft: a batch stops before the event that would pass it; a larger single event goes alone. */
export const SOFT_BATCH_BYTES = 256 * 1024;
export const REQUEST_TIMEOUT_MS = 15_000;
export const MIN_RETRY_DELAY_MS = 2_000;
export const MAX_RETRY_DELAY_MS = 5 * 60_000;
export const MAX_PREVIOUS_CREDENTIAL_TTL_SECONDS = 604_800;
export const DEFAULT_PREVIOUS_CREDENTIAL_TTL_SECONDS = 86_400;
export const MAX_ENDPOINT_URL_LENGTH = 2_048;

/**
 * Delay before the next attempt after `consecutiveFailures` failures in a row (1 for the first):
 * 2 s doubling to 5 min. A `Retry-After` the endpoint sent wins, held within the same range.
 */
export function retryDelayMs(consecutiveFailures: number, retryAfterMs: number | null): number {
  if (retryAfterMs !== null) return Math.min(MAX_RETRY_DELAY_MS, Math.max(MIN_RETRY_DELAY_MS, retryAfterMs));
  const exponent = Math.min(Math.max(consecutiveFailures - 1, 0), 20);
  return Math.min(MAX_RETRY_DELAY_MS, MIN_RETRY_DELAY_MS * 2 ** exponent);
}
