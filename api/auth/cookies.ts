import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { AppDeps } from '../deps.ts';
import type { AppEnv } from '../env.ts';
import { isUuid } from '../../domain/uuid.ts';

/** Browser cookies of every sign-in mode (spec 3 "Browser sessions"). */
export const SESSION_COOKIE = 'svc_session';
export const REFRESH_COOKIE = 'svc_refresh';
export const ACTIVE_PROJECT_COOKIE = 'svc_active_project';
export const LOGIN_STATE_COOKIE = 'svc_login_state';

/** The refresh and login-state cookies travel only to the sign-in routes. */
export const AUTH_COOKIE_PATH = '/v1/auth';

const secure = (deps: AppDeps) => deps.settings.appOrigin.startsWith('https:');

/** The HTTP-only session cookie (SameSite=Lax so links into the console keep the session). */
export function setSessionCookie(c: Context<AppEnv>, deps: AppDeps, token: string, maxAgeSeconds: number): void {
  setCookie(c, SESSION_COOKIE, token, { httpOnly: true, secure: secure(deps), sameSite: 'Lax', path: '/', maxAge: maxAgeSeconds });
}

/** The refresh credential: HTTP-only, strict same-site, sent only to `/v1/auth`. */
export function setRefreshCookie(c: Context<AppEnv>, deps: AppDeps, token: string): void {
  const maxAge = deps.settings.refreshLifetimeDays * 24 * 60 * 60;
  setCookie(c, REFRESH_COOKIE, token, { httpOnly: true, secure: secure(deps), sameSite: 'Strict', path: AUTH_COOKIE_PATH, maxAge });
}

/**
 * The login state binds the browser that started a sign-in to its callback. Lax, because the
 * provider's redirect back is a cross-site top-level navigation.
 */
export function setLoginStateCookie(c: Context<AppEnv>, deps: AppDeps, state: string): void {
  setCookie(c, LOGIN_STATE_COOKIE, state, { httpOnly: true, secure: secure(deps), sameSite: 'Lax', path: AUTH_COOKIE_PATH, maxAge: 10 * 60 });
}

export function setActiveProjectCookie(c: Context<AppEnv>, deps: AppDeps, projectId: string): void {
  setCookie(c, ACTIVE_PROJECT_COOKIE, projectId, { httpOnly: true, secure: secure(deps), sameSite: 'Lax', path: '/' });
}

/** The active project the browser chose, when it names a project id at all (membership is checked by the caller). */
export function activeProjectCookie(c: Context<AppEnv>): string | null {
  const value = getCookie(c, ACTIVE_PROJECT_COOKIE);
  return value && isUuid(value) ? value : null;
}

/** Logout: the session, refresh and active-project cookies go. */
export function clearBrowserCookies(c: Context<AppEnv>): void {
  deleteCookie(c, SESSION_COOKIE, { path: '/' });
  deleteCookie(c, REFRESH_COOKIE, { path: AUTH_COOKIE_PATH });
  deleteCookie(c, ACTIVE_PROJECT_COOKIE, { path: '/' });
}
