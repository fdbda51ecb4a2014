import type { Context } from 'hono';
import { Hono } from 'hono';
import { UnauthenticatedError } from '../../domain/errors.ts';
import { resolveEdgeActor } from '../../services/access/auth/index.ts';
import { createEdgeAssertionVerifier } from '../../services/access/auth/index.ts';
import type { AppDeps } from '../deps.ts';
import type { AppEnv } from '../env.ts';
import { activeProjectCookie, clearBrowserCookies } from './cookies.ts';
import type { AuthProvider } from './provider.ts';
import { addSwitchProjectRoute } from './switch-project.ts';
import { route } from '../openapi/route-doc.ts';
import { AuthProviderShape, LogoutShape } from '../../domain/public-shapes/access.ts';

/**
 * Edge-proxy identity (spec 3 "Modes"): an edge in front of the service (an identity-aware
 * proxy) signs in people and injects a short-lived signed assertion on every request. The
 * assertion is read from the configured header, or from `Proxy-Authorization: Bearer` when the
 * edge forwards its credential there (spec 3 "API keys" rule 5: then `Authorization` carries the
 * API key). The session lives at the edge, so there is no login or logout here.
 */
export function edgeProxyAuthProvider(deps: AppDeps): AuthProvider {
  const settings = deps.settings.edgeProxy!;
  const verify = createEdgeAssertionVerifier(settings);
  const routes = new Hono<AppEnv>();

  routes.get(
    '/provider',
    route({
      summary: 'The configured sign-in provider: `{mode, loginPath, logoutSupported}`',
      scopes: 'public',
      responses: { 200: { description: 'The provider', schema: AuthProviderShape } },
    }),
    (c) => c.json({ mode: 'edge_proxy', loginPath: null, logoutSupported: false }),
  );

  // Forgets the browser's project choice; signing out is the edge's business.
  routes.post(
    '/logout',
    route({
      transaction: 'none',
      summary: 'End the browser session and clear its cookies',
      scopes: [],
      responses: { 200: { description: 'An empty object, or `{redirectUrl}` to end the provider session', schema: LogoutShape } },
    }),
    async (c) => {
      if (c.var.authMethod !== 'edge_assertion') throw new UnauthenticatedError('Logout needs a browser session');
      clearBrowserCookies(c);
      return c.json({});
    },
  );

  addSwitchProjectRoute(routes, deps);

  const assertionOf = (c: Context<AppEnv>): string | null => {
    const injected = c.req.header(settings.assertionHeader);
    if (injected) return injected.trim();
    const proxy = c.req.header('proxy-authorization');
    if (!proxy) return null;
    const [scheme, token, extra] = proxy.trim().split(/\s+/);
    if (scheme?.toLowerCase() !== 'bearer' || !token || extra)
      throw new UnauthenticatedError('The Proxy-Authorization header must be "Bearer <edge credential>"');
    return token;
  };

  return {
    mode: 'edge_proxy',
    routes,
    publicRoutes: new Set(['GET /v1/auth/provider']),
    async authenticate(c, ctx) {
      const token = assertionOf(c);
      if (!token) return null;
      const identity = await verify(token);
      const actor = await resolveEdgeActor({ ctx, input: { identity, preferredProjectId: activeProjectCookie(c) } });
      return { actor, sessionId: null, method: 'edge_assertion' };
    },
    async checkBesideApiKey(c) {
      const token = assertionOf(c);
      if (token) await verify(token);
    },
  };
}
