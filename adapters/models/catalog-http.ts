import { DomainError, ValidationError } from '../../domain/errors.ts';
import type { ModelProviderType } from '../../domain/model-catalog/types.ts';

/** Per-request deadline for a vendor's model list; pagination makes a few of these at most. */
export const CATALOG_REQUEST_TIMEOUT_MS = 15_000;
/** Guards against a vendor (or a misconfigured base URL) paging forever. */
export const MAX_CATALOG_PAGES = 50;
const MAX_BODY_BYTES = 20 * 1024 * 1024;

export type VendorRequest = {
  providerType: ModelProviderType;
  baseUrl: string;
  apiKey: string;
  timeoutMs?: number;
};

/** `base` + `path` without doubling slashes; `query` values are URL-encoded. */
export function vendorUrl(baseUrl: string, path: string, query: Record<string, string | undefined> = {}): URL {
  const url = new URL(`${baseUrl.replace(/\/+$/, '')}${path}`);
  for (const [name, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(name, value);
  return url;
}

/**
 * The vendor could not answer usefully (unreachable, timed out, 5xx, or not JSON). The spec's
 * code set has no 502, so this is `internal_error` (500) with a safe message and
 * `details.reason`; the vendor's body is never read into it (it may echo the key).
 */
export class ProviderUnavailableError extends DomainError {
  constructor(providerType: ModelProviderType, reason: string, detail: string, providerStatus?: number) {
    super('internal_error', `The ${providerType} provider's model list is unavailable: ${detail}`, {
      reason,
      ...(providerStatus !== undefined ? { providerStatus } : {}),
    });
    this.name = 'ProviderUnavailableError';
  }
}

/**
 * GETs one JSON page from a vendor with the given auth headers. A 401/403 is the caller's
 * configuration problem (the stored key is wrong): 400 `bad_request`. Everything else that is
 * not a JSON 2xx is `ProviderUnavailableError`. Neither message carries the key or the body.
 */
export async function getVendorJson(request: VendorRequest, url: URL, headers: Record<string, string>): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'GET',
      headers: { accept: 'application/json', ...headers },
      redirect: 'error',
      signal: AbortSignal.timeout(request.timeoutMs ?? CATALOG_REQUEST_TIMEOUT_MS),
    });
  } catch (error) {
    const timedOut = (error as { name?: string }).name === 'TimeoutError';
    throw new ProviderUnavailableError(
      request.providerType,
      timedOut ? 'provider_timeout' : 'provider_unreachable',
      timedOut ? 'the provider did not answer in time' : 'the provider could not be reached',
    );
  }
  if (response.status === 401 || response.status === 403 || (response.status === 400 && (await isInvalidKeyAnswer(response)))) {
    await response.body?.cancel().catch(() => {});
    throw new ValidationError(`The ${request.providerType} provider rejected the credential (HTTP ${response.status}); rotate the provider's API key`, {
      reason: 'provider_rejected_credential',
      providerStatus: response.status,
    });
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => {});
    throw new ProviderUnavailableError(request.providerType, 'provider_error', `the provider answered HTTP ${response.status}`, response.status);
  }
  const text = await response.text();
  if (text.length > MAX_BODY_BYTES)
    throw new ProviderUnavailableError(request.providerType, 'provider_invalid_response', 'the provider answered too large a body');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ProviderUnavailableError(request.providerType, 'provider_invalid_response', 'the provider did not answer JSON');
  }
}

/**
 * Gemini answers an invalid key with 400 INVALID_ARGUMENT and `details[].reason`
 * API_KEY_INVALID rather than 401. Only that reason is read from the body, never echoed.
 */
async function isInvalidKeyAnswer(response: Response): Promise<boolean> {
  try {
    const body = (await response.json()) as { error?: { details?: Array<{ reason?: unknown }> } };
    return Array.isArray(body.error?.details) && body.error.details.some((detail) => detail?.reason === 'API_KEY_INVALID');
  } catch {
    return false;
  }
}

/** An array field of a vendor payload, or an invalid-response error. */
export function arrayField(request: VendorRequest, body: unknown, field: string): unknown[] {
  const value = (body as Record<string, unknown> | null)?.[field];
  if (!Array.isArray(value))
    throw new ProviderUnavailableError(request.providerType, 'provider_invalid_response', `the provider's answer has no ${field} list`);
  return value;
}

/** Keeps items that have a string id field; vendors may add other kinds of rows. */
export function withStringField<T>(items: unknown[], field: string): T[] {
  return items.filter((item): item is T => typeof (item as Record<string, unknown> | null)?.[field] === 'string');
}
