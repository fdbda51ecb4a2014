import { request } from 'undici';
import { recordHttpOutcome, serverAttributes, SpanKind, withSpan } from '../tracing.ts';
import { failureOutcome, pinnedAgent, resolvePinnedTarget, type DestinationLookup, type OutboundFailure } from './pinned-destination.ts';

/** What a pinned GET answered: at most `maxBodyBytes` of the body (`truncated` when there was more). */
export type GetOutcome = { kind: 'response'; status: number; contentType: string | null; body: Buffer; truncated: boolean } | OutboundFailure;

/**
 * GETs one http(s) URL under the address policy: the host resolved once, every address checked,
 * the connection pinned to the checked one, no redirects followed. Network trouble is an outcome,
 * never a throw (an abort of the caller's `signal` rethrows). In a CLIENT span `GET` with the
 * host and the status, never the path, query, headers or body.
 */
export function pinnedGet(input: Parameters<typeof getPinned>[0]): Promise<GetOutcome> {
  const attributes = { 'http.request.method': 'GET', ...serverAttributes(input.url) };
  return withSpan('GET', { kind: SpanKind.CLIENT, attributes }, async (span) => {
    const outcome = await getPinned(input);
    recordHttpOutcome(span, outcome);
    return outcome;
  });
}

async function getPinned(input: {
  url: URL;
  headers: Record<string, string>;
  timeoutMs: number;
  maxBodyBytes: number;
  allowPrivateNetwork: boolean;
  lookup?: DestinationLookup;
  signal: AbortSignal;
}): Promise<GetOutcome> {
  const deadline = AbortSignal.any([AbortSignal.timeout(input.timeoutMs), input.signal]);
  const target = await resolvePinnedTarget(input.url.hostname, input, deadline);
  if ('kind' in target) return target;
  const agent = pinnedAgent(target, input.timeoutMs);
  try {
    const response = await request(input.url, { dispatcher: agent, method: 'GET', signal: deadline, headersTimeout: input.timeoutMs, headers: input.headers });
    const chunks: Buffer[] = [];
    let size = 0;
    let truncated = false;
    for await (const chunk of response.body) {
      const buffer = chunk as Buffer;
      if (size + buffer.length > input.maxBodyBytes) {
        chunks.push(buffer.subarray(0, input.maxBodyBytes - size));
        truncated = true;
        break;
      }
      chunks.push(buffer);
      size += buffer.length;
    }
    response.body.destroy();
    const contentType = response.headers['content-type'];
    return {
      kind: 'response',
      status: response.statusCode,
      contentType: Array.isArray(contentType) ? (contentType[0] ?? null) : (contentType ?? null),
      body: Buffer.concat(chunks),
      truncated,
    };
  } catch (error) {
    if (input.signal.aborted) throw error;
    return failureOutcome(error);
  } finally {
    agent.destroy().catch(() => {});
  }
}
