import type { DestinationLookup, OutboundFailure } from '../../../adapters/outbound/pinned-destination.ts';
import { pinnedGet } from '../../../adapters/outbound/pinned-get.ts';
import type { PlatformToolModuleTool } from '../module-tool.ts';

const TIMEOUT_MS = 15_000;
const MAX_BODY_BYTES = 256 * 1024;

/**
 * `http_get`, the platform tool the service ships as an example of an operator module: GET one
 * http(s) URL under the same address policy as webhooks (public addresses only unless the
 * development setting allows private networks; the connection pinned to the checked address; no
 * redirects followed) and answer `{status, contentType, text, truncated}` with at most 256 KiB of
 * the body as text, within 15 s.
 */
export function httpGetTool(options: { allowPrivateNetwork: boolean; lookup?: DestinationLookup }): PlatformToolModuleTool {
  return {
    name: 'http_get',
    description: 'Fetches a web page or API response with GET and returns its status, content type and text.',
    inputSchema: {
      type: 'object',
      properties: { url: { type: 'string', description: 'An http or https URL' } },
      required: ['url'],
      additionalProperties: false,
    },
    async handler({ url: text }, { signal }) {
      let url: URL;
      try {
        url = new URL(String(text));
      } catch {
        throw new Error('url must be an absolute http or https URL');
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('url must use http or https');
      if (url.username !== '' || url.password !== '') throw new Error('url must not contain a user name or password');
      const answer = await pinnedGet({
        url,
        headers: { accept: '*/*', 'user-agent': 'agent-runtime-service http_get' },
        timeoutMs: TIMEOUT_MS,
        maxBodyBytes: MAX_BODY_BYTES,
        ...options,
        signal,
      });
      if (answer.kind !== 'response') throw new Error(describeFailure(answer));
      return { status: answer.status, contentType: answer.contentType, text: answer.body.toString('utf8'), truncated: answer.truncated };
    },
  };
}

/** What the model is told when the request did not get an answer: fixed phrases, never raw errors. */
function describeFailure(failure: OutboundFailure): string {
  if (failure.kind === 'destination_blocked') return `the address is not allowed: ${failure.reason}`;
  if (failure.kind === 'timeout') return 'timed out';
  return failure.reason;
}
