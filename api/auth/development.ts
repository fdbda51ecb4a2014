import type { Context } from 'hono';
import { Hono } from 'hono';
import { getCookie } from 'hono/cookie';
import { ForbiddenError, UnauthenticatedError, ValidationError } from '../../domain/errors.ts';
import { DEVELOPMENT_SUBJECT } from '../../domain/principals.ts';
import { authenticateBrowserSession } from '../../services/access/auth/index.ts';
import { SESSION_LIFETIME_MS } from '../../services/access/auth/index.ts';
import { createBrowserSession } from '../../services/access/auth/index.ts';
import { deleteBrowserSession } from '../../services/access/auth/index.ts';
import { ensureDevelopmentTenant } from '../../services/access/auth/index.ts';
import { loadMemberActor } from '../../services/access/auth/index.ts';
import { getContext } from '../../services/configuration/context/index.ts';
import type { AppDeps } from '../deps.ts';
import type { AppEnv } from '../env.ts';
import { ORIGIN_NOT_ALLOWED } from '../middleware/auth.ts';
import { activeProjectCookie, clearBrowserCookies, SESSION_COOKIE, setSessionCookie } from './cookies.ts';
import type { AuthProvider } from './provider.ts';
import { addSwitchProjectRoute } from './switch-project.ts';
import { route } from '../openapi/route-doc.ts';
import { AuthProviderShape, DevelopmentLoginShape, LogoutShape } from '../../domain/public-shapes/access.ts';

/**
 * Development mode (spec 3 "Modes"): `POST /auth/development/login` from the allowed Origin
 * gives an HTTP-only cookie session for the fixed development principal.
 */
export function developmentAuthProvider(deps: AppDeps): AuthProvider {
  const routes = new Hono<AppEnv>();

  // Spec 3 "Modes": development mode has no logout button, so the console is told not to show one.
  routes.get(
    '/provider',
    route({
      summary: 'The configured sign-in provider: `{mode, loginPath, logoutSupported}`',
      scopes: 'public',
      responses: { 200: { description: 'The provider', schema: AuthProviderShape } },
    }),
    (c) => c.json({ mode: 'development', loginPath: '/v1/auth/development/login', logoutSupported: false }),
  );

  routes.post(
    '/development/login',
    route({
      transaction: 'none',
      summary: 'Development mode: a cookie session for the development owner (needs the allowed Origin)',
      scopes: 'public',
      responses: { 200: { description: '`{authenticated: true, context}`', schema: DevelopmentLoginShape } },
    }),
    async (c) => {
      if (c.req.header('origin') !== deps.settings.appOrigin) throw new ForbiddenError(ORIGIN_NOT_ALLOWED);
      const ctx = c.var.ctx;
      const tenant = await ensureDevelopmentTenant({ ctx });
      const session = await createBrowserSession({
        ctx,
        input: { organizationId: tenant.organizationId, subject: DEVELOPMENT_SUBJECT, projectId: tenant.projectId },
      });
      setSessionCookie(c, deps, session.token, Math.floor(SESSION_LIFETIME_MS / 1000));
      const actor = await loadMemberActor({
        db: ctx.db,
        input: { organizationId: tenant.organizationId, projectId: tenant.projectId, subject: DEVELOPMENT_SUBJECT },
      });
      return c.json({ authenticated: true, context: await getContext({ ctx: { ...ctx, actor }, deps }) });
    },
  );

  routes.post(
    '/logout',
    route({
      transaction: 'none',
      summary: 'End the browser session and clear its cookies',
      scopes: [],
      responses: { 200: { description: 'An empty object, or `{redirectUrl}` to end the provider session', schema: LogoutShape } },
    }),
    async (c) => {
      const token = getCookie(c, SESSION_COOKIE);
      if (!token || c.var.authMethod !== 'cookie') throw new UnauthenticatedError('Logout needs the current cookie session');
      await deleteBrowserSession({ ctx: c.var.ctx, input: { token } });
      clearBrowserCookies(c);
      return c.json({});
    },
  );

  // Spec 3 "Browser sessions" rule 3: a sign-in callback in development mode is a 400.
  routes.get('/callback', route({ summary: 'Hosted sign-in callback (a 400 in development mode)', scopes: 'public', responses: {} }), () => {
    throw new ValidationError('There is no hosted sign-in callback in development mode; use POST /v1/auth/development/login');
  });

  addSwitchProjectRoute(routes, deps);

  return {
    mode: 'development',
    routes,
    publicRoutes: new Set(['GET /v1/auth/provider', 'POST /v1/auth/development/login', 'GET /v1/auth/callback']),
    async authenticate(c: Context<AppEnv>, ctx) {
      const token = getCookie(c, SESSION_COOKIE);
      if (!token) return null;
      const { actor, sessionId } = await authenticateBrowserSession({ ctx, input: { token, preferredProjectId: activeProjectCookie(c) } });
      return { actor, sessionId, method: 'cookie' };
    },
  };
}
