import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import { Agent } from 'undici';
import { checkDestinationAddress, isIpLiteral } from '../../domain/outbound/address-policy.ts';

/**
 * Outbound connections to addresses a tenant chose (webhook endpoints, MCP servers). Spec rule:
 * "Destinations must resolve only to public addresses; the connection is pinned to the checked
 * address." A destination is resolved once, every address is checked, and the socket layer gets
 * a lookup that can only answer the first checked address, so a second (rebinding) DNS answer
 * can never be dialled. Failures are outcomes with fixed phrases or error codes, never raw
 * messages (they can echo URLs or headers).
 */
export type DestinationLookup = (hostname: string) => Promise<Array<{ address: string; family: 4 | 6 }>>;

/** Why an outbound request got no answer. */
export type OutboundFailure = { kind: 'timeout' } | { kind: 'connection_failed'; reason: string } | { kind: 'destination_blocked'; reason: string };

/** The one address a destination's connections may use. */
export type PinnedTarget = { address: string; family: 4 | 6 };

/**
 * Resolves `hostname` (or takes its literal address), refuses non-public addresses unless the
 * development setting allows private networks, and returns the address to pin.
 */
export async function resolvePinnedTarget(
  hostname: string,
  input: { allowPrivateNetwork: boolean; lookup?: DestinationLookup },
  signal: AbortSignal,
): Promise<PinnedTarget | OutboundFailure> {
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

/**
 * A per-destination undici agent whose sockets can only reach the pinned address, while the URL
 * keeps the hostname for Host, SNI and the certificate check. Destroy it when done: nothing
 * pooled may outlive the check.
 */
export function pinnedAgent(target: PinnedTarget, connectTimeoutMs: number): Agent {
  return new Agent({ connect: { lookup: pinnedLookup(target), timeout: connectTimeoutMs } });
}

const systemLookup: DestinationLookup = async (hostname) => {
  const found = await dnsLookup(hostname, { all: true, verbatim: true });
  return found.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
};

// net.connect asks for `all` when autoSelectFamily is on (Node's default) and for one address
// otherwise; either way the only answer is the checked one. Answer on the next tick, like dns.
function pinnedLookup({ address, family }: PinnedTarget): LookupFunction {
  return (_hostname, options, callback) => {
    process.nextTick(() => (options.all ? callback(null, [{ address, family }]) : callback(null, address, family)));
  };
}

/** getaddrinfo cannot be cancelled; stop waiting for it when the attempt is over. */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
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

/** The outcome of a request that threw: timeout, connection failure (with a code), never the message. */
export function failureOutcome(error: unknown): OutboundFailure {
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
export function errorCode(error: unknown, depth = 0): string | undefined {
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
