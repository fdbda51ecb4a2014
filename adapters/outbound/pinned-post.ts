import { request } from 'undici';
import { recordHttpOutcome, serverAttributes, SpanKind, withSpan } from '../tracing.ts';
import { failureOutcome, pinnedAgent, resolvePinnedTarget, type DestinationLookup, type OutboundFailure } from './pinned-destination.ts';

export type { DestinationLookup };

/**
 * The one HTTP client of webhook delivery. Spec rule: "Destinations must resolve only to public
 * addresses; the connection is pinned to the checked address." We resolve once, check every
 * address, then hand the socket layer a lookup that can only answer the first checked address,
 * so a second (rebinding) DNS answer can never be dialled. Network trouble is an outcome,
 * never a throw; reasons are fixed phrases or error codes, never raw messages.
 */
export type PostOutcome = { kind: 'response'; status: number; retryAfterMs: number | null } | OutboundFailure;

/** One POST, in a CLIENT span `POST` with the destination's host and the answer's status (never its path, headers or body). */
export function pinnedPost(input: Parameters<typeof postPinned>[0]): Promise<PostOutcome> {
  const attributes = { 'http.request.method': 'POST', ...serverAttributes(input.url) };
  return withSpan('POST', { kind: SpanKind.CLIENT, attributes }, async (span) => {
    const outcome = await postPinned(input);
    recordHttpOutcome(span, outcome);
    return outcome;
  });
}

async function postPinned(input: {
  url: string;
  headers: Record<string, string>;
  body: string;
  /** The whole attempt: DNS, connect, TLS and response headers. */
  timeoutMs: number;
  /** Development setting: skip the address policy (still pinned). */
  allowPrivateNetwork: boolean;
  lookup?: DestinationLookup;
  signal?: AbortSignal;
}): Promise<PostOutcome> {
  const url = new URL(input.url);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError('pinnedPost needs an http: or https: URL');

  const deadline = AbortSignal.timeout(input.timeoutMs);
  const signal = input.signal ? AbortSignal.any([deadline, input.signal]) : deadline;
  // The caller's abort wins over our deadline when both have fired.
  const abortOutcome = (): PostOutcome | null => {
    if (input.signal?.aborted) return { kind: 'connection_failed', reason: 'aborted' };
    return deadline.aborted ? { kind: 'timeout' } : null;
  };

  const target = await resolvePinnedTarget(url.hostname, input, signal);
  if ('kind' in target) return abortOutcome() ?? target;

  // A per-call agent: nothing pooled can outlive the check, and `connect.lookup` replaces DNS
  // inside net/tls.connect while the URL keeps the hostname for Host, SNI and the cert check.
  const agent = pinnedAgent(target, input.timeoutMs);
  try {
    // No redirect interceptor is installed, so a 3xx comes back as a plain response.
    const response = await request(url, {
      dispatcher: agent,
      method: 'POST',
      headers: input.headers,
      body: input.body,
      signal,
      headersTimeout: input.timeoutMs,
    });
    // Only the status matters: drop the body unread (the listener absorbs the abort error).
    response.body.on('error', () => {});
    response.body.destroy();
    return { kind: 'response', status: response.statusCode, retryAfterMs: parseRetryAfter(response.headers['retry-after'], Date.now()) };
  } catch (error) {
    return abortOutcome() ?? failureOutcome(error);
  } finally {
    // Destroy rather than close: a slow server must not hold the attempt open.
    agent.destroy().catch(() => {});
  }
}

// RFC 9110 §10.2.3: delta-seconds or an HTTP-date; anything else is ignored.
function parseRetryAfter(value: string | string[] | undefined, now: number): number | null {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!text) return null;
  if (/^\d+$/.test(text)) {
    const ms = Number(text) * 1000;
    return Number.isSafeInteger(ms) ? ms : null;
  }
  // All three HTTP-date forms open with a day name; this keeps Date.parse's leniency out.
  if (!/^(Mon|Tue|Wed|Thu|Fri|Sat|Sun)/.test(text)) return null;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}
