import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { fetch as undiciFetch, type Agent } from 'undici';
import type { McpTransport } from '../../domain/mcp/types.ts';
import { errorCode, failureOutcome, pinnedAgent, resolvePinnedTarget, type DestinationLookup, type OutboundFailure } from '../outbound/pinned-destination.ts';

/** Why an MCP exchange failed: an outbound failure, or what the server answered. */
export type McpFailure =
  | OutboundFailure
  | { kind: 'http_status'; status: number }
  | { kind: 'response_too_large'; limitBytes: number }
  | { kind: 'redirect_refused' }
  | { kind: 'protocol_error'; reason: string };

/** Everything an MCP connection may do, decided before it opens. */
export type McpAccess = {
  endpointUrl: string;
  transport: McpTransport;
  /** The whole exchange: connect, initialize and the requests `work` makes. */
  timeoutMs: number;
  /** Bytes of all response bodies together. */
  maximumResponseBytes: number;
  /** Only URLs this accepts are requested (the endpoint's origin, a policy's origin and prefix). */
  contains: (url: URL) => boolean;
  /** Sent on every request, only when set (a policy allowed it). */
  credentialHeader: { name: string; value: string } | null;
  /** Development setting: skip the address policy (connections stay pinned). */
  allowPrivateNetwork: boolean;
  lookup?: DestinationLookup;
  signal?: AbortSignal;
};

const CLIENT_INFO = { name: 'agent-runtime-service', version: '0.1.0' };

/**
 * Opens an MCP session with the official SDK client over the server's transport, runs `work`,
 * and closes it. Every HTTP request the transports make goes through one fetch that (1) refuses
 * URLs `contains` rejects (an SSE server naming another origin for its POST endpoint, say),
 * (2) dials only the address checked and pinned for the endpoint's host (the webhooks' address
 * policy), (3) adds the credential header, (4) refuses redirects, and (5) counts response bytes
 * against the limit. Failures come back as `McpFailure` with fixed phrases, never raw messages.
 */
export async function withMcpSession<T>(
  access: McpAccess,
  work: (client: Client, options: { signal: AbortSignal; timeout: number }) => Promise<T>,
): Promise<{ ok: true; value: T } | { ok: false; failure: McpFailure }> {
  const endpoint = new URL(access.endpointUrl);
  const deadline = AbortSignal.timeout(access.timeoutMs);
  const signal = access.signal ? AbortSignal.any([deadline, access.signal]) : deadline;
  let failure: McpFailure | null = null;
  const fail = (found: McpFailure) => {
    failure ??= found;
    return new McpExchangeFailed();
  };

  const target = await resolvePinnedTarget(endpoint.hostname, access, signal);
  if ('kind' in target) return { ok: false, failure: deadline.aborted ? { kind: 'timeout' } : target };
  const agent: Agent = pinnedAgent(target, access.timeoutMs);
  let bytesLeft = access.maximumResponseBytes;

  const fetch = async (input: string | URL, init?: RequestInit): Promise<Response> => {
    const url = new URL(String(input));
    if (url.hostname !== endpoint.hostname || !access.contains(url)) throw fail({ kind: 'destination_blocked', reason: 'outside the allowed origin and path' });
    const headers = new Headers(init?.headers);
    if (access.credentialHeader) headers.set(access.credentialHeader.name, access.credentialHeader.value);
    let response: Awaited<ReturnType<typeof undiciFetch>>;
    try {
      response = await undiciFetch(url, {
        method: init?.method ?? 'GET',
        headers: Object.fromEntries(headers),
        body: (init?.body as string | undefined) ?? null,
        redirect: 'manual',
        dispatcher: agent,
        signal: init?.signal ? AbortSignal.any([signal, init.signal]) : signal,
      });
    } catch (error) {
      if (deadline.aborted) throw fail({ kind: 'timeout' });
      throw fail(failureOutcome(error));
    }
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel().catch(() => {});
      throw fail({ kind: 'redirect_refused' });
    }
    // A GET (the optional server stream) or DELETE (session end) may be unsupported: 405 is an answer.
    const optional = response.status === 405 && (init?.method === 'GET' || init?.method === 'DELETE' || init?.method === undefined);
    if (response.status >= 400 && !optional) fail({ kind: 'http_status', status: response.status });
    const declared = Number(response.headers.get('content-length') ?? '0');
    if (declared > bytesLeft) {
      await response.body?.cancel().catch(() => {});
      throw fail({ kind: 'response_too_large', limitBytes: access.maximumResponseBytes });
    }
    const body = response.body
      ? countBytes(response.body as ReadableStream<Uint8Array>, (size) => {
          bytesLeft -= size;
          return bytesLeft >= 0 ? null : fail({ kind: 'response_too_large', limitBytes: access.maximumResponseBytes });
        })
      : null;
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers as unknown as Headers });
  };

  const transport: Transport =
    access.transport === 'streamable_http'
      ? new StreamableHTTPClientTransport(endpoint, { fetch, redirectPolicy: 'same-origin' })
      : new SSEClientTransport(endpoint, { fetch, redirectPolicy: 'same-origin' });
  const client = new Client(CLIENT_INFO, { capabilities: {} });
  try {
    await client.connect(transport, { signal, timeout: access.timeoutMs });
    const value = await work(client, { signal, timeout: access.timeoutMs });
    return { ok: true, value };
  } catch (error) {
    if (failure) return { ok: false, failure };
    if (deadline.aborted) return { ok: false, failure: { kind: 'timeout' } };
    if (access.signal?.aborted) return { ok: false, failure: { kind: 'connection_failed', reason: 'aborted' } };
    return { ok: false, failure: protocolFailure(error) };
  } finally {
    await client.close().catch(() => {});
    agent.destroy().catch(() => {});
  }
}

/** A plain sentence for a failure, safe for API errors, tool errors and logs. */
export function describeMcpFailure(failure: McpFailure): string {
  switch (failure.kind) {
    case 'timeout':
      return 'the MCP server did not answer in time';
    case 'connection_failed':
      return `could not connect to the MCP server: ${failure.reason}`;
    case 'destination_blocked':
      return `the MCP server address is not allowed: ${failure.reason}`;
    case 'http_status':
      return `the MCP server answered HTTP ${failure.status}`;
    case 'response_too_large':
      return `the MCP server's response exceeded ${failure.limitBytes} bytes`;
    case 'redirect_refused':
      return 'the MCP server answered with a redirect, which is not followed';
    case 'protocol_error':
      return `the MCP server's answer was not valid MCP: ${failure.reason}`;
  }
}

class McpExchangeFailed extends Error {
  constructor() {
    super('MCP exchange failed');
  }
}

/** JSON-RPC errors carry a code; their messages come from the remote server and are not repeated. */
function protocolFailure(error: unknown): McpFailure {
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'number') return { kind: 'protocol_error', reason: `JSON-RPC error ${code}` };
  const named = errorCode(error);
  if (named) return { kind: 'protocol_error', reason: named };
  return { kind: 'protocol_error', reason: error instanceof SyntaxError ? 'malformed JSON' : 'unexpected answer' };
}

function countBytes(body: ReadableStream<Uint8Array>, add: (size: number) => Error | null): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) return controller.close();
        const error = add(value.byteLength);
        if (error) {
          await reader.cancel().catch(() => {});
          return controller.error(error);
        }
        controller.enqueue(value);
      } catch (error) {
        controller.error(error);
      }
    },
    cancel: (reason) => reader.cancel(reason),
  });
}
