import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { createApp } from './app.ts';
import type { AppDeps } from './deps.ts';

export type ApiServer = { url: string; deps: AppDeps; close(): Promise<void> };

/** Serves the API over its wired dependencies (scripts/app-deps.ts); `close` drains them. */
export async function startApiServer(deps: AppDeps): Promise<ApiServer> {
  const app = createApp(deps);
  const server = await new Promise<ServerType>((resolve) => {
    const started = serve({ fetch: app.fetch, port: deps.settings.port, hostname: deps.settings.host }, () => resolve(started));
  });
  const address = server.address() as AddressInfo;
  const host = deps.settings.host.includes(':') ? `[${deps.settings.host}]` : deps.settings.host;
  return {
    url: `http://${host}:${address.port}`,
    deps,
    async close() {
      await deps.eventTail.stop();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Open SSE streams would keep close() waiting forever.
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
      });
    },
  };
}
