import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { createApp } from './app.ts';
import type { AppDeps } from './deps.ts';

export const HEADERS_TIMEOUT_MS = 10_000;
export const REQUEST_TIMEOUT_MS = 120_000;

/** `server`: the Node HTTP server itself (tests watch its sockets). */
export type ApiServer = { url: string; deps: AppDeps; server: ServerType; close(): Promise<void> };

/** Serves the API over its wired dependencies (scripts/app-deps.ts); `close` drains them. */
export async function startApiServer(deps: AppDeps): Promise<ApiServer> {
  const app = createApp(deps);
  const server = await new Promise<ServerType>((resolve) => {
    // A client that trickles its headers (slow loris) is cut off after 10 s, checked every
    // second; a whole request, body upload included, may take two minutes.
    const serverOptions = { headersTimeout: HEADERS_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS, connectionsCheckingInterval: 1_000 };
    const started = serve({ fetch: app.fetch, port: deps.settings.port, hostname: deps.settings.host, serverOptions }, () => resolve(started));
  });
  const address = server.address() as AddressInfo;
  const host = deps.settings.host.includes(':') ? `[${deps.settings.host}]` : deps.settings.host;
  return {
    url: `http://${host}:${address.port}`,
    deps,
    server,
    async close() {
      await deps.eventTail.stop();
      await deps.messageDeltas.stop();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Open SSE streams would keep close() waiting forever.
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
      });
    },
  };
}
