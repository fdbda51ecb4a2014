import type { Context } from 'hono';
import { Hono } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import * as v from 'valibot';
import { ForbiddenError, UnauthenticatedError } from '../../domain/errors.ts';
import { DEVELOPMENT_SUBJECT } from '../../domain/principals.ts';
import { authenticateBrowserSession } from '../../services/auth/authenticate-browser-session.ts';
import { SESSION_LIFETIME_MS } from '../../services/auth/browser-session-token.ts';
import { createBrowserSession } from '../../services/auth/create-browser-session.ts';
import { deleteBrowserSession } from '../../services/auth/delete-browser-session.ts';
import { switchActiveProject } from '../../services/auth/switch-active-project.ts';
import { ensureDevelopmentTenant } from '../../services/auth/development-tenant.ts';
import { loadMemberActor } from '../../services/auth/load-actor.ts';
import { getContext } from '../../services/context/get-context.ts';
import type { AppDeps } from '../deps.ts';
import type { AppEnv } from '../env.ts';
import { ORIGIN_NOT_ALLOWED } from '../middleware/auth.ts';
import { Uuid, validBody } from '../validation.ts';
import type { AuthProvider } from './provider.ts';

export const SESSION_COOKIE = 'svc_session';

/**
 * Development mode (spec 3 "Modes"): `POST /auth/development/login` from the allowed Origin
 * gives an HTTP-only cookie session for the fixed development principal.
 */
export function developmentAuthProvider(deps: AppDeps): AuthProvider {
  const secure = deps.settings.appOrigin.startsWith('https:');
  const routes = new Hono<AppEnv>();

  // Spec 3 "Modes": development mode has no logout button, so the console is told not to show one.
  routes.get('/provider', (c) => c.json({ mode: 'development', loginPath: '/v1/auth/development/login', logoutSupported: false }));

  routes.post('/development/login', async (c) => {
    if (c.req.header('origin') !== deps.settings.appOrigin) throw new ForbiddenError(ORIGIN_NOT_ALLOWED);
    const ctx = c.var.ctx;
    const tenant = await ensureDevelopmentTenant(ctx);
    const session = await createBrowserSession(ctx, { organizationId: tenant.organizationId, subject: DEVELOPMENT_SUBJECT, projectId: tenant.projectId });
    setCookie(c, SESSION_COOKIE, session.token, {
      httpOnly: true,
      secure,
      sameSite: 'Lax',
      path: '/',
      maxAge: Math.floor(SESSION_LIFETIME_MS / 1000),
    });
    const actor = await loadMemberActor(ctx.db, { organizationId: tenant.organizationId, projectId: tenant.projectId, subject: DEVELOPMENT_SUBJECT });
    return c.json({ authenticated: true, context: await getContext({ ...ctx, actor }, deps) });
  });

  routes.post('/logout', async (c) => {
    const token = getCookie(c, SESSION_COOKIE);
    if (!token || c.var.authMethod !== 'cookie') throw new UnauthenticatedError('Logout needs the current cookie session');
    await deleteBrowserSession(c.var.ctx, token);
    deleteCookie(c, SESSION_COOKIE, { path: '/' });
    return c.json({});
  });

  routes.post('/switch-project', async (c) => {
    const token = getCookie(c, SESSION_COOKIE);
    if (!token || c.var.authMethod !== 'cookie') throw new UnauthenticatedError('Switching projects needs a cookie session');
    const { projectId } = await validBody(c, v.strictObject({ projectId: Uuid }));
    const { sessionId } = await authenticateBrowserSession(c.var.ctx, { token, pathProjectId: null });
    const actor = await switchActiveProject(c.var.ctx, { sessionId, actor: c.var.actor, projectId });
    return c.json(await getContext({ ...c.var.ctx, actor }, deps));
  });

  return {
    mode: 'development',
    routes,
    publicRoutes: new Set(['GET /v1/auth/provider', 'POST /v1/auth/development/login']),
    async authenticate(c: Context<AppEnv>, ctx, pathProjectId) {
      const token = getCookie(c, SESSION_COOKIE);
      if (!token) return null;
      return authenticateBrowserSession(ctx, { token, pathProjectId });
    },
  };
}
