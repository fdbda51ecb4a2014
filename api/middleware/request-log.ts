import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../env.ts';

/** Probed every few seconds by load balancers and container healthchecks: not worth a line each. */
const PROBES = new Set(['/healthz', '/readyz']);

/** One JSON line per request: method, route, status, duration, request id, project, principal. */
export const requestLog = () =>
  createMiddleware<AppEnv>(async (c, next) => {
    const started = performance.now();
    await next();
    if (PROBES.has(c.req.path) && c.res.status === 200) return;
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
