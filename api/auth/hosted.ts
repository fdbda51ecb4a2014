import { Hono } from 'hono';
import { deleteCookie, getCookie } from 'hono/cookie';
import { ForbiddenError, UnauthenticatedError } from '../../domain/errors.ts';
import { authenticateBrowserSession } from '../../services/access/auth/index.ts';
import { completeHostedSignIn, endHostedSession, hostedDeps, refreshHostedSession, startHostedSignIn } from '../../services/access/auth/index.ts';
import type { AppDeps } from '../deps.ts';
import type { AppEnv } from '../env.ts';
import { ORIGIN_NOT_ALLOWED } from '../middleware/auth.ts';
import {
  activeProjectCookie,
  AUTH_COOKIE_PATH,
  clearBrowserCookies,
  LOGIN_STATE_COOKIE,
  REFRESH_COOKIE,
  SESSION_COOKIE,
  setActiveProjectCookie,
  setLoginStateCookie,
  setRefreshCookie,
  setSessionCookie,
} from './cookies.ts';
import type { AuthProvider } from './provider.ts';
import { addSwitchProjectRoute } from './switch-project.ts';
import { route } from '../openapi/route-doc.ts';
import { AuthProviderShape, LogoutShape, SessionRefreshedShape, SignInRedirectShape } from '../../domain/public-shapes/access.ts';

/**
 * Hosted identity provider (spec 3 "Modes", "Browser sessions"): OpenID Connect authorization
 * code flow with PKCE. The callback URL and the application origin come only from settings.
 */
export function hostedAuthProvider(deps: AppDeps): AuthProvider {
  const hosted = hostedDeps(deps.settings.hosted!, {
    allowHttp: deps.settings.environment === 'development',
    keyring: deps.keyring,
    refreshLifetimeDays: deps.settings.refreshLifetimeDays,
  });
  const routes = new Hono<AppEnv>();
  const requireAppOrigin = (origin: string | undefined) => {
    if (origin !== deps.settings.appOrigin) throw new ForbiddenError(ORIGIN_NOT_ALLOWED);
  };

  routes.get(
    '/provider',
    route({
      summary: 'The configured sign-in provider: `{mode, loginPath, logoutSupported}`',
      scopes: 'public',
      responses: { 200: { description: 'The provider', schema: AuthProviderShape } },
    }),
    (c) => c.json({ mode: 'hosted', loginPath: '/v1/auth/login', logoutSupported: true }),
  );

  // Accepted with stale cookies: a new sign-in never depends on the old session.
  routes.post(
    '/login',
    route({
      transaction: 'none',
      summary: 'Start a hosted sign-in (needs the allowed Origin)',
      scopes: 'public',
      responses: { 200: { description: '`{redirectUrl}` of the identity provider', schema: SignInRedirectShape } },
    }),
    async (c) => {
      requireAppOrigin(c.req.header('origin'));
      const { redirectUrl, state } = await startHostedSignIn({ ctx: c.var.ctx, deps: hosted });
      setLoginStateCookie(c, deps, state);
      return c.json({ redirectUrl });
    },
  );

  routes.get(
    '/callback',
    route({
      summary: 'Finish a hosted sign-in: sets the session cookies and redirects to the application',
      scopes: 'public',
      responses: { 302: { description: 'To the application, or to a fresh sign-in when the state is stale' } },
    }),
    async (c) => {
      // The configured redirect URI with the provider's parameters: never the request's own host.
      const callbackUrl = new URL(hosted.oidc.settings.redirectUri);
      callbackUrl.search = new URL(c.req.url).search;
      const session = await completeHostedSignIn({
        ctx: c.var.ctx,
        deps: hosted,
        input: { callbackUrl, stateCookie: getCookie(c, LOGIN_STATE_COOKIE) ?? null },
      }).catch((error: unknown) => {
        deleteCookie(c, LOGIN_STATE_COOKIE, { path: AUTH_COOKIE_PATH });
        throw error;
      });
      if (!session) {
        // Expired, reused, missing or mismatched state: a new state and a fresh sign-in.
        const fresh = await startHostedSignIn({ ctx: c.var.ctx, deps: hosted });
        setLoginStateCookie(c, deps, fresh.state);
        return c.redirect(fresh.redirectUrl, 302);
      }
      deleteCookie(c, LOGIN_STATE_COOKIE, { path: AUTH_COOKIE_PATH });
      setSessionCookie(c, deps, session.sessionToken, session.sessionMaxAgeSeconds);
      setRefreshCookie(c, deps, session.refreshToken);
      setActiveProjectCookie(c, deps, session.projectId);
      return c.redirect(`${deps.settings.appOrigin}/`, 302);
    },
  );

  routes.post(
    '/refresh',
    route({
      transaction: 'none',
      summary: 'Refresh the cookie session with the refresh cookie',
      scopes: 'public',
      responses: { 200: { description: '`{refreshed: true, expiresInSeconds}`', schema: SessionRefreshedShape } },
    }),
    async (c) => {
      requireAppOrigin(c.req.header('origin'));
      const refreshToken = getCookie(c, REFRESH_COOKIE);
      if (!refreshToken) throw new UnauthenticatedError('There is no refresh credential; sign in again');
      const session = await refreshHostedSession({ ctx: c.var.ctx, deps: hosted, input: { refreshToken } }).catch((error: unknown) => {
        if (error instanceof UnauthenticatedError) clearBrowserCookies(c);
        throw error;
      });
      setSessionCookie(c, deps, session.sessionToken, session.sessionMaxAgeSeconds);
      setRefreshCookie(c, deps, session.refreshToken);
      return c.json({ refreshed: true, expiresInSeconds: session.sessionMaxAgeSeconds });
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
      if (c.var.authMethod !== 'cookie' || !c.var.browserSessionId) throw new UnauthenticatedError('Logout needs the current cookie session');
      const result = await endHostedSession({
        ctx: c.var.ctx,
        deps: { ...hosted, appOrigin: deps.settings.appOrigin },
        input: { sessionId: c.var.browserSessionId },
      });
      clearBrowserCookies(c);
      return c.json(result);
    },
  );

  addSwitchProjectRoute(routes, deps);

  return {
    mode: 'hosted',
    routes,
    publicRoutes: new Set(['GET /v1/auth/provider', 'POST /v1/auth/login', 'GET /v1/auth/callback', 'POST /v1/auth/refresh']),
    async authenticate(c, ctx) {
      const token = getCookie(c, SESSION_COOKIE);
      if (!token) return null;
      const { actor, sessionId } = await authenticateBrowserSession({ ctx, input: { token, preferredProjectId: activeProjectCookie(c) } });
      return { actor, sessionId, method: 'cookie' };
    },
  };
}
