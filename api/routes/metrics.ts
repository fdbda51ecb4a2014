import { Hono } from 'hono';
import { metricsRegistry } from '../../services/kernel/metrics/index.ts';
import type { AppEnv } from '../env.ts';

/** How long a scrape waits for the Temporal SDK's own exporter before answering without it. */
const CORE_SCRAPE_TIMEOUT_MS = 2_000;

/**
 * `GET /metrics` on an operator port (never the API's public port; docs/decisions/metrics-operator-port.md):
 * the Prometheus text of this process — the service's metrics and, on a worker, the Temporal
 * SDK's own (its Core runtime's Prometheus exporter, read from its loopback address and appended,
 * so one scrape target per process covers both).
 */
export function metricsRoutes(options: { coreMetricsUrl?: string | null; onCoreFailure?: (error: unknown) => void } = {}) {
  const app = new Hono<AppEnv>();
  app.get('/metrics', async (c) => {
    const [ours, core] = await Promise.all([
      metricsRegistry.metrics(),
      options.coreMetricsUrl ? readCore(options.coreMetricsUrl).catch((error: unknown) => (options.onCoreFailure?.(error), '')) : '',
    ]);
    c.header('content-type', metricsRegistry.contentType);
    c.header('cache-control', 'no-store');
    return c.body(core ? `${ours}\n${core}` : ours);
  });
  return app;
}

async function readCore(url: string): Promise<string> {
  const response = await fetch(url, { signal: AbortSignal.timeout(CORE_SCRAPE_TIMEOUT_MS) });
  if (!response.ok) throw new Error(`the Temporal SDK's metrics answered ${response.status}`);
  return response.text();
}
