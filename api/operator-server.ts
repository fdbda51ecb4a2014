import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { Hono } from 'hono';
import type { Readiness } from '../services/health/readiness.ts';
import type { AppEnv } from './env.ts';
import { healthRoutes } from './routes/health.ts';

export type OperatorServer = { url: string; close(): Promise<void> };

/**
 * The worker's HTTP port for operators (SVC_WORKER_METRICS_PORT): `/healthz` and `/readyz`, as the
 * API serves them. The worker has no API, so this is all it serves.
 */
export async function startOperatorServer(options: { readiness: Readiness; port: number; host: string }): Promise<OperatorServer> {
  const app = new Hono<AppEnv>();
  app.route('/', healthRoutes(options.readiness));
  const server = await new Promise<ServerType>((resolve) => {
    const started = serve({ fetch: app.fetch, port: options.port, hostname: options.host }, () => resolve(started));
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${host}:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
