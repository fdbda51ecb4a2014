import { randomUUID } from 'node:crypto';
import type { createApp } from '../../api/app.ts';

export type Route = { method: string; path: string };

/** Every `/v1` route the app registers (method and pattern), once each. */
export function registeredRoutes(app: ReturnType<typeof createApp>): Route[] {
  const seen = new Set<string>();
  return app.routes
    .filter((route) => route.path.startsWith('/v1/') && route.method !== 'ALL' && !route.path.includes('*'))
    .filter((route) => {
      const id = `${route.method} ${route.path}`;
      if (seen.has(id)) return false;
      seen.add(id);
      return true;
    })
    .map(({ method, path }) => ({ method, path }));
}

/** The names of a route pattern's parameters (`:projectId`, `:path{.+}` → `path`). */
export const routeParameters = (path: string) => [...path.matchAll(/:(\w+)(\{[^}]*\})?/g)].map((match) => match[1]!);

/** A concrete path: the project parameter as given, every other parameter a fresh UUID. */
export const concretePath = (path: string, projectId: string) =>
  path.replace(/:projectId/g, projectId).replace(/:(\w+)(\{[^}]*\})?/g, (_, name: string) => (name === 'path' ? 'notes.md' : randomUUID()));

/**
 * Mutations that take no Idempotency-Key, as spec 2 lists them: browser sign-in plumbing under
 * `/v1/auth/` and the configuration-restore preview (it changes nothing). Held here, apart from
 * the routes' own declarations (`transaction: 'none'`), so tests check those against the spec.
 */
export const takesNoIdempotencyKeyBySpec = (path: string) =>
  path.startsWith('/v1/auth/') || /^\/v1\/organizations\/[^/]+\/configuration-restore\/preview$/.test(path);
