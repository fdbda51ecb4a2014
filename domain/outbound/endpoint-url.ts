import { checkDestinationAddress, isIpLiteral } from './address-policy.ts';
import { MAX_ENDPOINT_URL_LENGTH } from '../webhooks/limits.ts';

/**
 * Endpoint rules checked when a webhook, an MCP server or a storage connection is saved (spec 2
 * "Event webhooks"): HTTPS and a public host; development servers may allow `http://` and
 * private networks. Literal addresses and `localhost` names are checked here; other host names
 * are resolved and checked at every use, because what a name resolves to can change (the
 * refusal is then `destination_blocked`). `field` names the input in messages.
 */
export function endpointUrlProblem(text: string, options: { allowPrivateNetwork: boolean; field?: string }): string | null {
  const field = options.field ?? 'endpointUrl';
  if (text.length > MAX_ENDPOINT_URL_LENGTH) return `${field} must be at most ${MAX_ENDPOINT_URL_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `${field} must be an absolute URL`;
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && options.allowPrivateNetwork)) {
    return options.allowPrivateNetwork ? `${field} must use https:// or http://` : `${field} must use https://`;
  }
  // Credentials in a URL would be shown in responses and sent to logs; sign with the secret instead.
  if (url.username !== '' || url.password !== '') return `${field} must not contain a user name or password`;
  if (url.hash !== '') return `${field} must not contain a fragment`;
  if (url.hostname === '') return `${field} must name a host`;
  const hostProblem = nonPublicHost(url.hostname, options);
  return hostProblem ? `${field} must name a public host, not ${hostProblem}` : null;
}

/**
 * Why a URL's host (WHATWG `url.hostname`, which spells `0x7f000001` as `127.0.0.1`) is not
 * public, or null: a literal non-public address, or a `localhost` name (loopback by RFC 6761,
 * in any case, with or without the trailing dot). Null too when private networks are allowed.
 */
export function nonPublicHost(hostname: string, options: { allowPrivateNetwork: boolean }): string | null {
  if (options.allowPrivateNetwork) return null;
  if (isLocalhostName(hostname)) return 'a loopback name (localhost)';
  if (!isIpLiteral(hostname)) return null;
  const verdict = checkDestinationAddress(hostname.replace(/^\[|\]$/g, ''));
  return verdict.allowed ? null : `a ${verdict.reason}`;
}

/** `localhost`, `LOCALHOST.`, `api.localhost`: names RFC 6761 reserves for loopback. */
export function isLocalhostName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

/** What audit entries record of an endpoint: its origin only (paths and queries may hold tokens). */
export function endpointOrigin(text: string): string {
  return new URL(text).origin;
}
