import { mkdirSync } from 'node:fs';
import * as path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { edgeProxyEnvironment, startEdgeSigner, type EdgeSigner } from '../fixtures/edge-proxy/edge-signer.ts';
import { startOidcProvider, type OidcAccount, type OidcFixture } from '../fixtures/oidc-provider/server.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { freePort, serveApp, type ServedApp } from '../support/http-server.ts';

/**
 * Signing in to the console in a real browser in the two production modes (spec 3 "Modes"):
 * hosted, through a real OpenID provider's redirects (oidc-provider over HTTPS), and behind an
 * edge proxy, whose signed assertion the browser's requests carry as the proxy would add it.
 */
const SCREENSHOTS = path.resolve('test/e2e/.screenshots');
let browser: Browser;

beforeAll(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
});
afterAll(async () => {
  await browser?.close();
});

/** The service on a port of its own whose origin is the allowed one. */
async function serveConsole(env: (origin: string) => Record<string, string>): Promise<{ t: TestApp; served: ServedApp; origin: string }> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const t = await createTestApp({ env: { SVC_APP_ORIGIN: origin, ...env(origin) } });
  return { t, served: await serveApp(t.app.fetch, { port }), origin };
}

describe('hosted sign-in in the browser', () => {
  const OWNER: OidcAccount = { sub: 'owner-sub', email: 'owner@example.com', name: 'Olivia Owner' };
  let idp: OidcFixture;
  let app: Awaited<ReturnType<typeof serveConsole>>;
  // The service's clock runs ahead by this much: how the tests let an hour pass.
  let aheadMs = 0;

  beforeAll(async () => {
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    idp = await startOidcProvider({ redirectUris: [`${origin}/v1/auth/callback`], postLogoutRedirectUris: [`${origin}/`] });
    const t = await createTestApp({
      clock: { now: () => new Date(Date.now() + aheadMs) },
      env: {
        SVC_APP_ORIGIN: origin,
        SVC_AUTH_MODE: 'hosted',
        SVC_OIDC_ISSUER: idp.issuer,
        SVC_OIDC_CLIENT_ID: idp.clientId,
        SVC_OIDC_CLIENT_SECRET: idp.clientSecret,
        SVC_OIDC_CA_FILE: idp.caFile,
        SVC_INITIAL_OWNER_SUBJECT: OWNER.sub,
      },
    });
    app = { t, served: await serveApp(t.app.fetch, { port }), origin };
  });
  afterAll(async () => {
    await app?.served.close();
    await app?.t.close();
    await idp?.close();
  });

  it('goes to the identity provider and comes back signed in, then signs out through it', async () => {
    // The provider's certificate is the fixture's own; the service trusts it through SVC_OIDC_CA_FILE.
    const context = await browser.newContext({ ignoreHTTPSErrors: true });
    const page = await context.newPage();
    await page.goto(app.origin);
    await expect.poll(() => page.getByText('Sign in with your organization account.').isVisible()).toBe(true);
    idp.nextLogin(OWNER);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Overview' }).isVisible(), { timeout: 20_000 }).toBe(true);
    expect(new URL(page.url()).origin).toBe(app.origin);
    expect(await page.locator('dl.facts').innerText()).toContain('Olivia Owner (human)');
    expect(await page.locator('dl.facts').innerText()).toContain('hosted');
    await page.screenshot({ path: path.join(SCREENSHOTS, 'sign-in-hosted.png') });
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect.poll(() => page.url()).toMatch(new RegExp(`^${idp.issuer.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`));
    await context.close();
  });

  it('refreshes an expired session once and carries on; when the refresh is refused, goes through the provider again', async () => {
    const context = await browser.newContext({ ignoreHTTPSErrors: true });
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    const sessionCookie = async () => (await context.cookies()).find((cookie) => cookie.name === 'svc_session')?.value;
    const nav = (name: string) => page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name });
    await page.goto(app.origin);
    idp.nextLogin(OWNER);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Overview' }).isVisible(), { timeout: 20_000 }).toBe(true);
    const first = await sessionCookie();

    // An hour later the access session has expired: the next call is refreshed (the provider's refresh grant included) and retried.
    aheadMs += 61 * 60_000;
    const refreshes: number[] = [];
    page.on('response', (response) => void (response.url().endsWith('/v1/auth/refresh') && refreshes.push(response.status())));
    await nav('Agents').click();
    await expect.poll(() => page.getByText('No agents yet').isVisible()).toBe(true);
    expect(refreshes).toEqual([200]);
    expect(await sessionCookie()).not.toBe(first);
    expect(await page.getByRole('button', { name: 'Sign in' }).count()).toBe(0);

    // Another hour, and the provider no longer honours the refresh token: the console starts a fresh hosted login.
    aheadMs += 61 * 60_000;
    idp.forgetRefreshTokens();
    idp.nextLogin(OWNER);
    const authorizations: string[] = [];
    page.on('request', (request) => void (request.url().startsWith(idp.issuer) && request.isNavigationRequest() && authorizations.push(request.url())));
    await nav('Skills').click();
    await expect.poll(() => authorizations.length, { timeout: 20_000 }).toBeGreaterThan(0);
    expect(refreshes).toEqual([200, 401]);
    await expect.poll(() => page.getByRole('heading', { name: 'Overview' }).isVisible(), { timeout: 20_000 }).toBe(true);
    expect(new URL(page.url()).origin).toBe(app.origin);
    expect(await page.locator('dl.facts').innerText()).toContain('Olivia Owner (human)');
    await page.screenshot({ path: path.join(SCREENSHOTS, 'sign-in-hosted-refreshed.png') });
    await context.close();
  });
});

describe('edge-proxy sign-in in the browser', () => {
  let edge: EdgeSigner;
  let app: Awaited<ReturnType<typeof serveConsole>>;

  beforeAll(async () => {
    edge = await startEdgeSigner();
    app = await serveConsole(() => edgeProxyEnvironment(edge));
  });
  afterAll(async () => {
    await app?.served.close();
    await app?.t.close();
    await edge?.close();
  });

  it('explains the proxy to a request that arrives without its assertion', async () => {
    const page = await browser.newPage();
    await page.goto(app.origin);
    await expect.poll(() => page.getByText(/signed in by your organization's access proxy/).isVisible()).toBe(true);
    expect(await page.getByRole('button', { name: 'Sign in' }).count()).toBe(0);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'sign-in-edge-proxy-refused.png') });
    await page.close();
  });

  it('is signed in by the assertion the proxy adds to every request, mutations included', async () => {
    const context = await browser.newContext({
      extraHTTPHeaders: { 'x-edge-assertion': await edge.sign({ sub: 'sub-olivia', email: 'olivia@example.com', name: 'Olivia' }) },
    });
    const page = await context.newPage();
    await page.goto(app.origin);
    await expect.poll(() => page.getByRole('heading', { name: 'Overview' }).isVisible()).toBe(true);
    expect(await page.locator('dl.facts').innerText()).toContain('Olivia');
    expect(await page.locator('dl.facts').innerText()).toContain('edge_proxy');
    // No sign-out in this mode (the edge owns the sign-in); a mutation works with the browser's Origin.
    expect(await page.getByRole('button', { name: 'Sign out' }).count()).toBe(0);
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Skills' }).click();
    await page.getByRole('button', { name: 'New blank draft' }).click();
    await expect.poll(() => page.getByRole('region', { name: 'Draft editor' }).isVisible()).toBe(true);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'sign-in-edge-proxy.png') });
    await context.close();
  });
});
