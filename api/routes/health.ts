import { Hono } from 'hono';
import type { Readiness } from '../../services/kernel/health/index.ts';
import type { AppEnv } from '../env.ts';

/**
 * Operators' probes, outside `/v1` and without authentication
 * (docs/decisions/health-and-readiness-probes.md): `GET /healthz` answers while the process runs; `GET /readyz` answers 200 when the
 * database, its migrations and Temporal answer, 503 naming what fails (or `draining` after
 * SIGTERM). They carry dependency names and states only.
 */
export function healthRoutes(readiness: Readiness) {
  const app = new Hono<AppEnv>();
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', async (c) => {
    const report = await readiness.check();
    c.header('cache-control', 'no-store');
    return c.json({ status: report.status, checks: report.checks }, report.ready ? 200 : 503);
  });
  return app;
}
