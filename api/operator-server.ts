import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { Hono } from 'hono';
import type { Readiness } from '../services/kernel/health/index.ts';
import type { AppEnv } from './env.ts';
import { healthRoutes } from './routes/health.ts';
import { metricsRoutes } from './routes/metrics.ts';

export type OperatorServer = { url: string; close(): Promise<void> };

/**
 * A process's HTTP port for operators (SVC_WORKER_METRICS_PORT, SVC_API_METRICS_PORT):
 * `/metrics` (Prometheus text), `/healthz` and `/readyz`. Kept off the API's public port, so the
 * installation's figures (agents, webhooks, volumes of every tenant) never reach its callers.
 */
export async function startOperatorServer(options: {
  readiness: Readiness;
  port: number;
  host: string;
  /** The Temporal SDK's own Prometheus exporter of this process (a worker), appended to `/metrics`. */
  coreMetricsUrl?: string | null;
  onCoreMetricsFailure?: (error: unknown) => void;
}): Promise<OperatorServer> {
  const app = new Hono<AppEnv>();
  app.route('/', healthRoutes(options.readiness));
  app.route(
    '/',
    metricsRoutes({ coreMetricsUrl: options.coreMetricsUrl ?? null, ...(options.onCoreMetricsFailure ? { onCoreFailure: options.onCoreMetricsFailure } : {}) }),
  );
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
