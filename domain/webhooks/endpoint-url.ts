import { checkDestinationAddress, isIpLiteral } from './address-policy.ts';
import { MAX_ENDPOINT_URL_LENGTH } from './limits.ts';

/**
 * Endpoint rules checked when a webhook is saved (spec 2 "Event webhooks"): HTTPS and a public
 * host; development servers may allow `http://` and private networks. Literal addresses are
 * checked here; host names are resolved and checked at every delivery, because what a name
 * resolves to can change (the refusal is then `destination_blocked`).
 */
export function endpointUrlProblem(text: string, options: { allowPrivateNetwork: boolean }): string | null {
  if (text.length > MAX_ENDPOINT_URL_LENGTH) return `endpointUrl must be at most ${MAX_ENDPOINT_URL_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'endpointUrl must be an absolute URL';
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && options.allowPrivateNetwork)) {
    return options.allowPrivateNetwork ? 'endpointUrl must use https:// or http://' : 'endpointUrl must use https://';
  }
  // Credentials in a URL would be shown in responses and sent to logs; sign with the secret instead.
  if (url.username !== '' || url.password !== '') return 'endpointUrl must not contain a user name or password';
  if (url.hash !== '') return 'endpointUrl must not contain a fragment';
  if (url.hostname === '') return 'endpointUrl must name a host';
  if (!options.allowPrivateNetwork && isIpLiteral(url.hostname)) {
    const verdict = checkDestinationAddress(url.hostname.replace(/^\[|\]$/g, ''));
    if (!verdict.allowed) return `endpointUrl must name a public host, not a ${verdict.reason}`;
  }
  return null;
}

/** What audit entries record of an endpoint: its origin only (paths and queries may hold tokens). */
export function endpointOrigin(text: string): string {
  return new URL(text).origin;
}
