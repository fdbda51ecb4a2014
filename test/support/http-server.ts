import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';

export type ServedApp = {
  /** `http://127.0.0.1:<port>` */
  baseUrl: string;
  /** Drops every open connection (streams included) but keeps listening. */
  cutConnections(): void;
  close(): Promise<void>;
};

/** Serves an in-process app over real HTTP on a free local port (or `port`). */
export async function serveApp(fetch: (request: Request) => Response | Promise<Response>, options: { port?: number } = {}): Promise<ServedApp> {
  const server = await new Promise<ServerType>((resolve) => {
    const started = serve({ fetch, port: options.port ?? 0, hostname: '127.0.0.1' }, () => resolve(started));
  });
  const node = server as unknown as { closeAllConnections(): void };
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    cutConnections: () => node.closeAllConnections(),
    async close() {
      node.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A port that was free a moment ago (for a server whose own settings must name its address). */
export async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve, reject) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
    probe.on('error', reject);
  });
}
