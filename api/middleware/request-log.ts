import { createMiddleware } from 'hono/factory';
import { metrics } from '../../services/kernel/metrics/index.ts';
import type { AppEnv } from '../env.ts';

/** Probed every few seconds by load balancers and container healthchecks: not worth a line each. */
const PROBES = new Set(['/healthz', '/readyz']);

/**
 * One JSON line per request (method, route, status, duration, request id, project, principal), and
 * the request metrics by method, route pattern and status.
 */
export const requestLog = () =>
  createMiddleware<AppEnv>(async (c, next) => {
    const started = performance.now();
    await next();
    if (PROBES.has(c.req.path) && c.res.status === 200) return;
    const route = c.req.routePath;
    metrics.httpRequests.inc({ method: c.req.method, route, status: String(c.res.status) });
    metrics.httpRequestDuration.observe({ method: c.req.method, route }, (performance.now() - started) / 1000);
    const actor = c.get('actor') as AppEnv['Variables']['actor'] | undefined;
    c.get('logger').info('request', {
      method: c.req.method,
      route: c.req.routePath,
      path: c.req.path,
      status: c.res.status,
      durationMs: Math.round((performance.now() - started) * 10) / 10,
      projectId: actor?.projectId ?? null,
      principalId: actor?.principalId ?? null,
    });
  });
