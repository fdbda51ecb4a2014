import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROLE_SCOPES } from '../../domain/members.ts';
import { startOidcProvider, type OidcAccount, type OidcFixture } from '../fixtures/oidc-provider/server.ts';
import { createTestApp, manualClock, TEST_ORIGIN, type TestApp, type TestResponse } from '../support/app.ts';

/**
 * Hosted sign-in (spec 3 "Modes", "Browser sessions"; spec 2 "Browser authentication") against a
 * real OpenID provider (`oidc-provider` over HTTPS in test/fixtures/oidc-provider), driven the way
 * a browser drives it: cookies, redirects, the provider's own pages.
 */
let idp: OidcFixture;
let t: TestApp;
const clock = manualClock(new Date());
const OWNER: OidcAccount = { sub: 'owner-sub', email: 'owner@example.com', name: 'Olivia Owner' };
const CALLBACK = `${TEST_ORIGIN}/v1/auth/callback`;

/** A browser's cookie jar for the service (paths ignored: every cookie goes on every request). */
class Jar {
  cookies = new Map<string, string>();
  take(response: TestResponse): string[] {
    const lines = response.headers.getSetCookie();
    for (const line of lines) {
      const [pair] = line.split(';');
      const index = pair!.indexOf('=');
      const name = pair!.slice(0, index);
      const value = pair!.slice(index + 1);
      if (/max-age=0/i.test(line) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return lines;
  }
  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
  clone(): Jar {
    const copy = new Jar();
    copy.cookies = new Map(this.cookies);
    return copy;
  }
}

const send = async (jar: Jar, method: string, path: string, body?: unknown) => {
  const response = await t.request(method, path, { cookie: jar.header() || undefined, origin: TEST_ORIGIN, ...(body !== undefined ? { body } : {}) });
  jar.take(response);
  return response;
};
const pathOf = (url: string) => {
  const parsed = new URL(url);
  return parsed.pathname + parsed.search;
};

/** POST /auth/login → the provider (signing in as `account`) → the callback URL it sends the browser to. */
async function startSignIn(jar: Jar, account: OidcAccount): Promise<string> {
  const login = await send(jar, 'POST', '/v1/auth/login');
  expect(login.status).toBe(200);
  const { redirectUrl } = await login.json();
  idp.nextLogin(account);
  return idp.followToCallback(redirectUrl);
}

async function signIn(account: OidcAccount): Promise<Jar> {
  const jar = new Jar();
  const callback = await startSignIn(jar, account);
  const finished = await send(jar, 'GET', pathOf(callback));
  expect(finished.status).toBe(302);
  return jar;
}

/** A callback answer that starts over: a redirect to a fresh provider sign-in with a new state cookie. */
async function expectFreshSignIn(response: TestResponse, jar: Jar, previousState: string | undefined) {
  expect(response.status).toBe(302);
  expect(response.headers.get('location')!.startsWith(`${idp.issuer}/`)).toBe(true);
  expect(jar.cookies.get('svc_login_state')).toBeDefined();
  expect(jar.cookies.get('svc_login_state')).not.toBe(previousState);
  expect(jar.cookies.has('svc_session')).toBe(false);
}

beforeAll(async () => {
  idp = await startOidcProvider({ redirectUris: [CALLBACK], postLogoutRedirectUris: [`${TEST_ORIGIN}/`] });
  t = await createTestApp({
    clock,
    env: {
      SVC_AUTH_MODE: 'hosted',
      SVC_OIDC_ISSUER: idp.issuer,
      SVC_OIDC_CLIENT_ID: idp.clientId,
      SVC_OIDC_CLIENT_SECRET: idp.clientSecret,
      SVC_OIDC_CA_FILE: idp.caFile,
      SVC_INITIAL_OWNER_SUBJECT: OWNER.sub,
    },
  });
});
afterAll(async () => {
  await t.close();
  await idp.close();
});

describe('hosted sign-in', () => {
  it('GET /auth/provider reports hosted; POST /auth/login needs the allowed Origin', async () => {
    expect(await (await t.request('GET', '/v1/auth/provider')).json()).toEqual({ mode: 'hosted', loginPath: '/v1/auth/login', logoutSupported: true });
    const refused = await t.request('POST', '/v1/auth/login', { origin: null });
    expect(refused.status).toBe(403);
  });

  it('a full browser sign-in: HTTPS redirect with PKCE, callback, cookies, redirect to the app', async () => {
    const jar = new Jar();
    const login = await send(jar, 'POST', '/v1/auth/login');
    const { redirectUrl } = await login.json();
    const authorization = new URL(redirectUrl);
    expect(authorization.protocol).toBe('https:');
    expect(authorization.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorization.searchParams.get('redirect_uri')).toBe(CALLBACK);
    const stateCookie = login.headers.getSetCookie().find((line) => line.startsWith('svc_login_state='))!;
    expect(stateCookie).toMatch(/HttpOnly/i);
    expect(stateCookie).toMatch(/Max-Age=600/);

    idp.nextLogin(OWNER);
    const callback = await idp.followToCallback(redirectUrl);
    expect(callback.startsWith(`${CALLBACK}?`)).toBe(true);
    const finished = await send(jar, 'GET', pathOf(callback));
    expect(finished.status).toBe(302);
    expect(finished.headers.get('location')).toBe(`${TEST_ORIGIN}/`);
    const cookies = finished.headers.getSetCookie();
    expect(cookies.find((line) => line.startsWith('svc_session='))).toMatch(/HttpOnly.*SameSite=Lax|SameSite=Lax.*HttpOnly/i);
    const refresh = cookies.find((line) => line.startsWith('svc_refresh='))!;
    expect(refresh).toMatch(/HttpOnly/i);
    expect(refresh).toMatch(/SameSite=Strict/i);
    expect(refresh).toMatch(/Max-Age=34560000/);
    expect(jar.cookies.has('svc_active_project')).toBe(true);

    const context = await (await send(jar, 'GET', '/v1/context')).json();
    // The provider's `name` claim is the display name (the owner was provisioned by subject alone).
    expect(context.principal).toMatchObject({ subject: OWNER.sub, displayName: 'Olivia Owner', kind: 'human', organizationRole: 'owner', scopes: ['*'] });
    expect(context.authProvider).toBe('hosted');
  });

  it('the state is single-use and expires after ten minutes; a missing or mismatched one starts over', async () => {
    // Reused: the callback a finished sign-in already consumed.
    const reused = new Jar();
    const callback = await startSignIn(reused, OWNER);
    const stateBefore = reused.cookies.get('svc_login_state');
    const copy = reused.clone();
    expect((await send(reused, 'GET', pathOf(callback))).status).toBe(302);
    await expectFreshSignIn(await send(copy, 'GET', pathOf(callback)), copy, stateBefore);

    // Expired: eleven minutes between login and callback.
    const late = new Jar();
    const lateCallback = await startSignIn(late, OWNER);
    const lateState = late.cookies.get('svc_login_state');
    clock.advance(11 * 60 * 1000);
    await expectFreshSignIn(await send(late, 'GET', pathOf(lateCallback)), late, lateState);

    // Mismatched: the callback of one sign-in with the state cookie of another.
    const first = new Jar();
    const firstCallback = await startSignIn(first, OWNER);
    const second = new Jar();
    await send(second, 'POST', '/v1/auth/login');
    const secondState = second.cookies.get('svc_login_state');
    await expectFreshSignIn(await send(second, 'GET', pathOf(firstCallback)), second, secondState);

    // Missing: no state cookie at all.
    const bare = new Jar();
    await expectFreshSignIn(await send(bare, 'GET', pathOf(firstCallback)), bare, undefined);
  });

  it('a provider identity alone grants nothing; a member added by subject signs in with their role', async () => {
    const stranger = new Jar();
    const callback = await startSignIn(stranger, { sub: 'stranger-sub', email: 'stranger@example.com' });
    const refused = await send(stranger, 'GET', pathOf(callback));
    expect(refused.status).toBe(403);
    expect((await refused.json()).error.message).toContain('stranger-sub');
    expect(stranger.cookies.has('svc_session')).toBe(false);

    const owner = await signIn(OWNER);
    const projectId = (await (await send(owner, 'GET', '/v1/context')).json()).project.id;
    const added = await send(owner, 'POST', `/v1/projects/${projectId}/members`, { subject: 'viewer-sub', role: 'viewer' });
    expect(added.status).toBe(201);
    const viewer = await signIn({ sub: 'viewer-sub', email: 'vic@example.com', name: 'Vic' });
    const context = await (await send(viewer, 'GET', '/v1/context')).json();
    expect(context.principal).toMatchObject({ subject: 'viewer-sub', organizationRole: 'viewer', projectRole: 'viewer' });
    expect(context.principal.scopes).toEqual(ROLE_SCOPES.viewer);
  });

  it('refresh rotates both cookies; the old ones stop working; a rejected refresh clears the session', async () => {
    const jar = await signIn(OWNER);
    const oldSession = jar.clone();
    expect((await t.request('POST', '/v1/auth/refresh', { cookie: jar.header(), origin: null })).status).toBe(403);
    const refreshed = await send(jar, 'POST', '/v1/auth/refresh');
    expect(refreshed.status).toBe(200);
    expect(jar.cookies.get('svc_session')).not.toBe(oldSession.cookies.get('svc_session'));
    expect((await send(jar, 'GET', '/v1/context')).status).toBe(200);
    expect((await send(oldSession.clone(), 'GET', '/v1/context')).status).toBe(401);
    expect((await send(oldSession, 'POST', '/v1/auth/refresh')).status).toBe(401);

    idp.forgetRefreshTokens();
    const rejected = await send(jar, 'POST', '/v1/auth/refresh');
    expect(rejected.status).toBe(401);
    expect((await rejected.json()).error.code).toBe('unauthenticated');
    expect(jar.cookies.has('svc_session')).toBe(false);
    expect(jar.cookies.has('svc_refresh')).toBe(false);
  });

  it('logout clears the cookies and returns the provider end-session URL', async () => {
    const jar = await signIn(OWNER);
    const before = jar.clone();
    const response = await send(jar, 'POST', '/v1/auth/logout');
    expect(response.status).toBe(200);
    const { redirectUrl } = await response.json();
    expect(new URL(redirectUrl).protocol).toBe('https:');
    expect(redirectUrl.startsWith(idp.issuer)).toBe(true);
    expect(new URL(redirectUrl).searchParams.get('post_logout_redirect_uri')).toBe(`${TEST_ORIGIN}/`);
    expect([...jar.cookies.keys()].filter((name) => ['svc_session', 'svc_refresh', 'svc_active_project'].includes(name))).toEqual([]);
    expect((await send(before, 'GET', '/v1/context')).status).toBe(401);
  });

  it('switch-project needs a membership there; a deleted active project falls back to the own project', async () => {
    const jar = await signIn(OWNER);
    const home = (await (await send(jar, 'GET', '/v1/context')).json()).project.id;
    const side = (await (await send(jar, 'POST', '/v1/projects', { slug: 'side', name: 'Side' })).json()).id;
    const key = (await (await send(jar, 'POST', `/v1/projects/${home}/api-keys`, { name: 'admin', scopes: ['*'] })).json()).secret;
    const foreign = (await (await t.request('POST', '/v1/projects', { apiKey: key, body: { slug: 'keys-only', name: 'Keys only' } })).json()).id;

    expect((await send(jar, 'POST', '/v1/auth/switch-project', { projectId: foreign })).status).toBe(403);
    expect((await send(jar, 'POST', '/v1/auth/switch-project', { projectId: side })).status).toBe(200);
    expect((await (await send(jar, 'GET', '/v1/context')).json()).project.id).toBe(side);

    expect((await t.request('DELETE', `/v1/projects/${side}`, { apiKey: key })).status).toBe(200);
    expect((await (await send(jar, 'GET', '/v1/context')).json()).project.id).toBe(home);
  });
});

describe('re-resolving the person on every request', () => {
  it('a revoked membership in the active project falls back to the own project', async () => {
    const owner = await signIn(OWNER);
    const home = (await (await send(owner, 'GET', '/v1/context')).json()).project.id;
    const lab = (await (await send(owner, 'POST', '/v1/projects', { slug: 'lab', name: 'Lab' })).json()).id;
    expect((await send(owner, 'POST', `/v1/projects/${home}/members`, { subject: 'dev-sub', role: 'member' })).status).toBe(201);
    expect((await send(owner, 'POST', '/v1/auth/switch-project', { projectId: lab })).status).toBe(200);
    const inLab = await send(owner, 'POST', `/v1/projects/${lab}/members`, { subject: 'dev-sub', role: 'member' });
    expect(inLab.status).toBe(201);

    const dev = await signIn({ sub: 'dev-sub', email: 'dev@example.com' });
    expect((await send(dev, 'POST', '/v1/auth/switch-project', { projectId: lab })).status).toBe(200);
    expect((await (await send(dev, 'GET', '/v1/context')).json()).project.id).toBe(lab);

    expect((await send(owner, 'DELETE', `/v1/projects/${lab}/members/${(await inLab.json()).id}`)).status).toBe(200);
    const after = await (await send(dev, 'GET', '/v1/context')).json();
    expect(after.project.id).toBe(home);
    expect((await send(dev, 'GET', `/v1/projects/${lab}/agents`)).status).toBe(403);
  });
});

describe('a provider that cannot be reached', () => {
  it('answers sign-in with 503 and Retry-After (retryable), and the API still starts', async () => {
    const app = await createTestApp({
      env: { SVC_AUTH_MODE: 'hosted', SVC_OIDC_ISSUER: 'https://127.0.0.1:9', SVC_OIDC_CLIENT_ID: 'svc', SVC_INITIAL_OWNER_SUBJECT: 'first-owner' },
    });
    try {
      const response = await app.request('POST', '/v1/auth/login', { origin: TEST_ORIGIN });
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('5');
      expect((await response.json()).error.code).toBe('service_unavailable');
    } finally {
      await app.close();
    }
  });
});
