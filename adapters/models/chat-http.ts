import { MODEL_ATTEMPT_DEADLINE_MS } from '../../domain/runs/model-retry.ts';
import { httpError, modelError, type VendorErrorDetail } from './errors.ts';
import { SseDecoder } from './sse.ts';
import type { ModelRequest } from './types.ts';

/** The most a vendor may send for one attempt: a JSON body, or a whole stream. */
export const MAX_BODY_CHARS = 32 * 1024 * 1024;

/** `base` + `path` without doubling slashes. */
export function joinUrl(baseUrl: string, path: string): string {
  return `${baseUrl.replace(/\/+$/, '')}${path}`;
}

type ReadResult = Awaited<ReturnType<ReadableStreamDefaultReader<Uint8Array>['read']>>;

/** One server-sent event as the protocols read it. */
export type StreamEvent = { event: string | null; data: string };

/**
 * What a streamed POST produced: the stream was read (to its end, or until `onEvent` said it saw
 * the protocol's final event), or the vendor answered one JSON body instead (a proxy that
 * ignores `stream`, a test script; the adapter parses it as a non-streamed answer).
 */
export type StreamedAnswer = { kind: 'stream'; status: number } | { kind: 'json'; status: number; body: unknown };

/**
 * POSTs a JSON body asking for a server-sent event stream and feeds each event to `onEvent`
 * (which returns true at the protocol's final event: reading stops there). `request.onStream`
 * gets a `chunk` for every event and comment before `onEvent` sees it. Every failure is a
 * `ModelInvocationError`: aborts (timeout vs cancellation, before or during the stream),
 * network errors (a stream that breaks off is `provider_unreachable`), non-2xx answers (through
 * `readError`, the vendor's error-body reader), more than `MAX_BODY_CHARS` in all, and a JSON
 * answer that is not JSON. Whatever `onEvent` or `request.onStream` throws propagates as it is,
 * and the request is aborted.
 */
export async function postStream(
  request: ModelRequest,
  url: string,
  headers: Record<string, string>,
  body: unknown,
  readError: (body: unknown) => VendorErrorDetail,
  onEvent: (event: StreamEvent) => boolean,
): Promise<StreamedAnswer> {
  // Spec 3: each model attempt has a five-minute deadline, the whole stream included. The
  // activity normally passes its own signal; this ceiling applies regardless, so a hung vendor
  // cannot hold a worker slot forever.
  const signal = request.signal
    ? AbortSignal.any([request.signal, AbortSignal.timeout(MODEL_ATTEMPT_DEADLINE_MS)])
    : AbortSignal.timeout(MODEL_ATTEMPT_DEADLINE_MS);
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream, application/json', ...headers },
      body: JSON.stringify(body),
      redirect: 'error',
      signal,
    });
  } catch (error) {
    throw transportError(request, signal, error, false);
  }
  const status = response.status;
  if (status < 200 || status >= 300) {
    const text = await readWhole(request, signal, response);
    throw httpError(request.providerType, status, readError(text === null ? null : parseOrNull(text)), request.apiKey);
  }
  if (!/^text\/event-stream\b/i.test(response.headers.get('content-type') ?? '')) {
    const text = await readWhole(request, signal, response);
    if (text === null) throw tooLarge(request, status);
    const parsed = parseOrNull(text);
    if (parsed === null || typeof parsed !== 'object') {
      throw modelError('provider_invalid_response', `The ${request.providerType} provider did not answer a JSON object (HTTP ${status})`, {
        httpStatus: status,
      });
    }
    request.onStream?.({ kind: 'chunk' });
    return { kind: 'json', status, body: parsed };
  }
  if (!response.body) return { kind: 'stream', status };
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  const sse = new SseDecoder();
  let size = 0;
  let ended = false;
  try {
    for (;;) {
      const chunk = await readText(request, signal, reader, decoder);
      const text = chunk.text;
      size += text.length;
      if (size > MAX_BODY_CHARS) throw tooLarge(request, status);
      const events = chunk.done ? [...sse.push(text), ...sse.end()] : sse.push(text);
      ended = chunk.done;
      for (const event of events) {
        // An abort (by the caller, even from inside onStream) stops the events already read too.
        if (signal.aborted) throw transportError(request, signal, signal.reason, true);
        request.onStream?.({ kind: 'chunk' });
        if (event.type === 'message' && onEvent(event)) return { kind: 'stream', status };
      }
      if (chunk.done) return { kind: 'stream', status };
    }
  } finally {
    // Stopped early (the final event, a vendor error, the caller giving up): hang up.
    if (!ended) reader.cancel().catch(() => {});
  }
}

/** An event's `data` as a JSON object, or a retryable invalid response. */
export function eventJson(request: ModelRequest, data: string): Record<string, unknown> {
  const parsed = parseOrNull(data);
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw modelError('provider_invalid_response', `The ${request.providerType} provider sent a stream event that is not a JSON object`);
  }
  return parsed as Record<string, unknown>;
}

/**
 * A stream that ended (cleanly) before the protocol's final event: the answer is incomplete, so
 * the attempt fails, retryably (a connection that broke off is `provider_unreachable`).
 */
export function streamEndedEarly(request: ModelRequest, missing: string) {
  return modelError('provider_invalid_response', `The ${request.providerType} provider's stream ended before ${missing}`);
}

// The body of a JSON or error answer, read within the size bound; null when it is larger.
async function readWhole(request: ModelRequest, signal: AbortSignal, response: Response): Promise<string | null> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let ended = false;
  try {
    for (;;) {
      const chunk = await readText(request, signal, reader, decoder);
      ended = chunk.done;
      text += chunk.text;
      if (text.length > MAX_BODY_CHARS) return null;
      if (chunk.done) return text;
    }
  } finally {
    if (!ended) reader.cancel().catch(() => {});
  }
}

/** The next piece of a body as text (the decoder's rest at its end); a broken connection is `provider_unreachable`. */
async function readText(
  request: ModelRequest,
  signal: AbortSignal,
  reader: ReadableStreamDefaultReader<Uint8Array>,
  decoder: InstanceType<typeof TextDecoder>,
): Promise<{ text: string; done: boolean }> {
  let chunk: ReadResult;
  try {
    chunk = await reader.read();
  } catch (error) {
    throw transportError(request, signal, error, true);
  }
  return { text: chunk.done ? decoder.decode() : decoder.decode(chunk.value, { stream: true }), done: chunk.done };
}

function tooLarge(request: ModelRequest, status: number) {
  return modelError('provider_invalid_response', `The ${request.providerType} provider answered too large a body`, { httpStatus: status });
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
function transportError(request: ModelRequest, signal: AbortSignal, error: unknown, answering: boolean) {
  if (signal.aborted) {
    const reason = signal.reason as { name?: string } | undefined;
    if (reason?.name === 'TimeoutError')
      return modelError('provider_timeout', `The ${request.providerType} provider did not answer before the attempt deadline`);
    return modelError('provider_call_cancelled', `The ${request.providerType} call was cancelled`);
  }
  const cause = (error as { cause?: { code?: unknown } }).cause?.code ?? '';
  const code = typeof cause === 'string' && /^[A-Z_]{2,40}$/.test(cause) ? ` (${cause})` : '';
  if (answering) return modelError('provider_unreachable', `The ${request.providerType} provider's answer broke off${code}`);
  return modelError('provider_unreachable', `The ${request.providerType} provider could not be reached${code}`);
}
