import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import { Agent, request } from 'undici';
import { checkDestinationAddress, isIpLiteral } from '../../domain/webhooks/address-policy.ts';

/**
 * The one HTTP client of webhook delivery. Spec rule: "Destinations must resolve only to public
 * addresses; the connection is pinned to the checked address." We resolve once, check every
 * address, then hand the socket layer a lookup that can only answer the first checked address,
 * so a second (rebinding) DNS answer can never be dialled. Network trouble is an outcome,
 * never a throw; reasons are fixed phrases or error codes, never raw messages.
 */
export type DestinationLookup = (hostname: string) => Promise<Array<{ address: string; family: 4 | 6 }>>;

export type PostOutcome =
  | { kind: 'response'; status: number; retryAfterMs: number | null }
  | { kind: 'timeout' }
  | { kind: 'connection_failed'; reason: string }
  | { kind: 'destination_blocked'; reason: string };

type Pinned = { address: string; family: 4 | 6 };

export async function pinnedPost(input: {
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

  const target = await resolveTarget(url.hostname, input, signal);
  if ('kind' in target) return abortOutcome() ?? target;

  // A per-call agent: nothing pooled can outlive the check, and `connect.lookup` replaces DNS
  // inside net/tls.connect while the URL keeps the hostname for Host, SNI and the cert check.
  const agent = new Agent({ connect: { lookup: pinnedLookup(target), timeout: input.timeoutMs } });
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

async function resolveTarget(
  hostname: string,
  input: { allowPrivateNetwork: boolean; lookup?: DestinationLookup },
  signal: AbortSignal,
): Promise<Pinned | PostOutcome> {
  const literal = isIpLiteral(hostname);
  let addresses: string[];
  if (literal) {
    addresses = [hostname.replace(/^\[(.*)\]$/, '$1')];
  } else {
    try {
      addresses = (await untilAborted((input.lookup ?? systemLookup)(hostname), signal)).map((found) => found.address);
    } catch (error) {
      return { kind: 'connection_failed', reason: withCode('DNS lookup failed', errorCode(error)) };
    }
  }
  // Trust the text, not the lookup's family field: net needs the two to agree.
  if (addresses.some((address) => isIP(address) === 0)) return { kind: 'connection_failed', reason: 'DNS lookup returned an invalid address' };
  if (!input.allowPrivateNetwork) {
    for (const address of addresses) {
      const verdict = checkDestinationAddress(address);
      if (!verdict.allowed) {
        return { kind: 'destination_blocked', reason: literal ? verdict.reason : `resolves to ${withArticle(verdict.reason)}` };
      }
    }
  }
  const first = addresses[0];
  if (first === undefined) return { kind: 'connection_failed', reason: 'DNS lookup returned no addresses' };
  return { address: first, family: isIP(first) as 4 | 6 };
}

const systemLookup: DestinationLookup = async (hostname) => {
  const found = await dnsLookup(hostname, { all: true, verbatim: true });
  return found.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
};

// net.connect asks for `all` when autoSelectFamily is on (Node's default) and for one address
// otherwise; either way the only answer is the checked one. Answer on the next tick, like dns.
function pinnedLookup({ address, family }: Pinned): LookupFunction {
  return (_hostname, options, callback) => {
    process.nextTick(() => (options.all ? callback(null, [{ address, family }]) : callback(null, address, family)));
  };
}

// getaddrinfo cannot be cancelled; stop waiting for it when the attempt is over.
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'ETIMEDOUT']);

const REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection reset',
  UND_ERR_SOCKET: 'connection closed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
};

function failureOutcome(error: unknown): PostOutcome {
  const code = errorCode(error);
  // A header undici refuses is the caller's bug, not the destination's.
  if (code === 'UND_ERR_INVALID_ARG') throw error;
  if (code !== undefined && TIMEOUT_CODES.has(code)) return { kind: 'timeout' };
  if (code !== undefined && REASONS[code]) return { kind: 'connection_failed', reason: REASONS[code] };
  if (code !== undefined && (code === 'EPROTO' || /^ERR_(TLS|SSL)_|CERT|UNABLE_TO_/.test(code))) {
    return { kind: 'connection_failed', reason: withCode('TLS handshake failed', code) };
  }
  return { kind: 'connection_failed', reason: withCode('connection failed', code) };
}

// Codes are fixed identifiers; messages can echo URLs or headers, so they are never used.
function errorCode(error: unknown, depth = 0): string | undefined {
  if (typeof error !== 'object' || error === null || depth > 3) return undefined;
  const { code, cause, errors } = error as { code?: unknown; cause?: unknown; errors?: unknown };
  if (typeof code === 'string' && /^[A-Z][A-Z0-9_]{1,63}$/.test(code)) return code;
  const inner = Array.isArray(errors) ? errors[0] : cause;
  return errorCode(inner, depth + 1);
}

function withCode(phrase: string, code: string | undefined): string {
  return code ? `${phrase} (${code})` : phrase;
}

function withArticle(reason: string): string {
  return /^[aeiouI]/.test(reason) && !reason.startsWith('uni') ? `an ${reason}` : `a ${reason}`;
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
