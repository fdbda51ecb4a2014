import { MODEL_ATTEMPT_DEADLINE_MS } from '../../domain/runs/model-retry.ts';
import { httpError, modelError, type VendorErrorDetail } from './errors.ts';
import type { ModelRequest } from './types.ts';

const MAX_BODY_CHARS = 32 * 1024 * 1024;

/** `base` + `path` without doubling slashes. */
export function joinUrl(baseUrl: string, path: string): string {
  return `${baseUrl.replace(/\/+$/, '')}${path}`;
}

/**
 * POSTs a JSON body and returns the parsed JSON answer. Every failure is a
 * `ModelInvocationError`: aborts (timeout vs cancellation), network errors, non-2xx answers
 * (through `readError`, the vendor's error-body reader) and bodies that are not JSON.
 */
export async function postJson(
  request: ModelRequest,
  url: string,
  headers: Record<string, string>,
  body: unknown,
  readError: (body: unknown) => VendorErrorDetail,
): Promise<unknown> {
  // Spec 3: each model attempt has a five-minute deadline. The activity normally passes its own
  // signal; this ceiling applies regardless, so a hung vendor cannot hold a worker slot forever.
  const signal = request.signal ? AbortSignal.any([request.signal, AbortSignal.timeout(MODEL_ATTEMPT_DEADLINE_MS)]) : AbortSignal.timeout(MODEL_ATTEMPT_DEADLINE_MS);
  let text: string;
  let status: number;
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
      body: JSON.stringify(body),
      redirect: 'error',
      signal,
    });
    status = response.status;
    text = await response.text();
  } catch (error) {
    throw transportError(request, signal, error);
  }
  if (status < 200 || status >= 300) throw httpError(request.providerType, status, readError(parseOrNull(text)), request.apiKey);
  if (text.length > MAX_BODY_CHARS) throw modelError('provider_invalid_response', `The ${request.providerType} provider answered too large a body`, { httpStatus: status });
  const parsed = parseOrNull(text);
  if (parsed === null || typeof parsed !== 'object') {
    throw modelError('provider_invalid_response', `The ${request.providerType} provider did not answer a JSON object (HTTP ${status})`, { httpStatus: status });
  }
  return parsed;
}

function parseOrNull(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

// The signal says why a request stopped: a TimeoutError reason is a deadline (retryable);
// any other abort is the caller cancelling. Without an abort it is the network.
function transportError(request: ModelRequest, signal: AbortSignal, error: unknown) {
  if (signal.aborted) {
    const reason = signal.reason as { name?: string } | undefined;
    if (reason?.name === 'TimeoutError') return modelError('provider_timeout', `The ${request.providerType} provider did not answer before the attempt deadline`);
    return modelError('provider_call_cancelled', `The ${request.providerType} call was cancelled`);
  }
  const code = ((error as { cause?: { code?: unknown } }).cause?.code ?? '') as string;
  return modelError('provider_unreachable', `The ${request.providerType} provider could not be reached${typeof code === 'string' && /^[A-Z_]{2,40}$/.test(code) ? ` (${code})` : ''}`);
}
