import { request } from 'undici';
import { failureOutcome, pinnedAgent, resolvePinnedTarget, type DestinationLookup } from '../../../adapters/outbound/pinned-destination.ts';
import type { PlatformToolModuleTool } from '../modules.ts';

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
    inputSchema: { type: 'object', properties: { url: { type: 'string', description: 'An http or https URL' } }, required: ['url'], additionalProperties: false },
    async handler({ url: text }, { signal }) {
      let url: URL;
      try {
        url = new URL(String(text));
      } catch {
        throw new Error('url must be an absolute http or https URL');
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('url must use http or https');
      if (url.username !== '' || url.password !== '') throw new Error('url must not contain a user name or password');
      const deadline = AbortSignal.any([AbortSignal.timeout(TIMEOUT_MS), signal]);
      const target = await resolvePinnedTarget(url.hostname, options, deadline);
      if ('kind' in target) throw new Error(target.kind === 'destination_blocked' ? `the address is not allowed: ${target.reason}` : target.kind === 'timeout' ? 'timed out' : target.reason);
      const agent = pinnedAgent(target, TIMEOUT_MS);
      try {
        const response = await request(url, { dispatcher: agent, method: 'GET', signal: deadline, headersTimeout: TIMEOUT_MS, headers: { accept: '*/*', 'user-agent': 'agent-runtime-service http_get' } });
        const chunks: Buffer[] = [];
        let size = 0;
        let truncated = false;
        for await (const chunk of response.body) {
          const buffer = chunk as Buffer;
          if (size + buffer.length > MAX_BODY_BYTES) {
            chunks.push(buffer.subarray(0, MAX_BODY_BYTES - size));
            truncated = true;
            break;
          }
          chunks.push(buffer);
          size += buffer.length;
        }
        response.body.destroy();
        const contentType = response.headers['content-type'];
        return { status: response.statusCode, contentType: Array.isArray(contentType) ? contentType[0] ?? null : contentType ?? null, text: Buffer.concat(chunks).toString('utf8'), truncated };
      } catch (error) {
        if (signal.aborted) throw error;
        const outcome = failureOutcome(error);
        throw new Error(outcome.kind === 'timeout' ? 'timed out' : outcome.kind === 'connection_failed' ? outcome.reason : 'the request failed');
      } finally {
        agent.destroy().catch(() => {});
      }
    },
  };
}
