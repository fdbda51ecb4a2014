import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { organizations, projects } from '../../db/schema/index.ts';
import { createBrowserSession } from '../../services/access/auth/index.ts';
import { readInstallation } from '../../services/access/auth/index.ts';
import { systemContext } from '../../services/kernel/service-context.ts';
import { edgeProxyEnvironment, startEdgeSigner, type EdgeSigner } from '../fixtures/edge-proxy/edge-signer.ts';
import { createTestApp, TEST_ORIGIN, type RequestOptions, type TestApp } from '../support/app.ts';
import { isMutation } from '../../api/mutations.ts';
import { concretePath, registeredRoutes, takesNoIdempotencyKeyBySpec, type Route } from '../support/routes.ts';

/**
 * The shared checks every route gets (STYLE.md "Tests"), over every route the app registers —
 * so a route added later is covered without anyone remembering to — under each sign-in mode
 * (development, edge-proxy, hosted): no credentials 401, a project of another organization 403
 * (API key and browser credential), a browser mutation without the allowed Origin 403, a missing
 * Idempotency-Key 400 on mutations, and a malformed body answered with the error envelope, never
 * a 500.
 */
type Mode = {
  name: 'development' | 'edge_proxy' | 'hosted';
  publicRoutes: string[];
  /** A fresh app in this mode, its browser credential (the owner, in its own project) and a `*` key. */
  start(): Promise<{ t: TestApp; browser: () => Promise<RequestOptions>; key: string; close?: () => Promise<void> }>;
};

const modes: Mode[] = [
  {
    name: 'development',
    publicRoutes: ['GET /v1/openapi.json', 'GET /v1/auth/provider', 'POST /v1/auth/development/login', 'GET /v1/auth/callback'],
    async start() {
      const t = await createTestApp();
      const { cookie } = await t.login();
      return { t, browser: async () => ({ cookie }), key: (await t.createApiKey(['*'])).secret };
    },
  },
  {
    name: 'edge_proxy',
    publicRoutes: ['GET /v1/openapi.json', 'GET /v1/auth/provider'],
    async start() {
      const edge: EdgeSigner = await startEdgeSigner();
      const t = await createTestApp({ env: edgeProxyEnvironment(edge) });
      const browser = async (): Promise<RequestOptions> => ({ headers: { 'x-edge-assertion': await edge.sign({ sub: 'owner', email: 'owner@example.com' }) } });
      const context = await (await t.request('GET', '/v1/context', await browser())).json();
      const created = await t.request('POST', `/v1/projects/${context.project.id}/api-keys`, {
        ...(await browser()),
        origin: TEST_ORIGIN,
        body: { name: 'k', scopes: ['*'] },
      });
      return { t, browser, key: (await created.json()).secret, close: () => edge.close() };
    },
  },
  {
    name: 'hosted',
    publicRoutes: ['GET /v1/openapi.json', 'GET /v1/auth/provider', 'POST /v1/auth/login', 'GET /v1/auth/callback', 'POST /v1/auth/refresh'],
    async start() {
      // The provider is never reached by these checks (discovery is lazy); the owner's cookie
      // session is the one a completed sign-in stores.
      const t = await createTestApp({
        env: { SVC_AUTH_MODE: 'hosted', SVC_OIDC_ISSUER: 'https://idp.invalid', SVC_OIDC_CLIENT_ID: 'svc', SVC_INITIAL_OWNER_SUBJECT: 'owner-sub' },
      });
      const installation = (await readInstallation(t.database.db))!;
      const session = await createBrowserSession({
        ctx: systemContext({ db: t.database.db, logger: t.deps.logger }),
        input: { organizationId: installation.organizationId, subject: 'owner-sub', projectId: installation.defaultProjectId! },
      });
      const cookie = `svc_session=${session.token}`;
      const created = await t.request('POST', `/v1/projects/${installation.defaultProjectId}/api-keys`, { cookie, body: { name: 'k', scopes: ['*'] } });
      return { t, browser: async () => ({ cookie }), key: (await created.json()).secret };
    },
  },
];

const concrete = concretePath;

describe.each(modes)('every route in $name mode', (mode) => {
  let t: TestApp;
  let key: string;
  let browser: () => Promise<RequestOptions>;
  let close: (() => Promise<void>) | undefined;
  let ownProject: string;
  let foreignProject: string;
  let routes: Route[];
  const PUBLIC = new Set(mode.publicRoutes);

  beforeAll(async () => {
    ({ t, key, browser, close } = await mode.start());
    ownProject = (await (await t.request('GET', '/v1/context', { apiKey: key })).json()).project.id;
    const [org] = await t.database.db
      .insert(organizations)
      .values({ slug: `other-${randomUUID()}`, name: 'Other' })
      .returning();
    const [project] = await t.database.db.insert(projects).values({ organizationId: org!.id, slug: 'theirs', name: 'Theirs' }).returning();
    foreignProject = project!.id;
    routes = registeredRoutes(t.app);
  });
  afterAll(async () => {
    await t.close();
    await close?.();
  });

  it('is registered (sanity: the table is not empty)', () => {
    expect(routes.length).toBeGreaterThan(40);
  });

  it('answers 401 without credentials', async () => {
    const failures: string[] = [];
    for (const route of routes) {
      if (PUBLIC.has(`${route.method} ${route.path}`)) continue;
      const response = await t.request(route.method, concrete(route.path, ownProject), isMutation(route.method) ? { body: {} } : {});
      if (response.status !== 401) failures.push(`${route.method} ${route.path} → ${response.status}`);
    }
    expect(failures).toEqual([]);
  });

  it("answers 403 for another organization's project", async () => {
    const failures: string[] = [];
    for (const route of routes.filter((r) => r.path.includes(':projectId'))) {
      const response = await t.request(route.method, concrete(route.path, foreignProject), { apiKey: key, ...(isMutation(route.method) ? { body: {} } : {}) });
      if (response.status !== 403) failures.push(`${route.method} ${route.path} → ${response.status}`);
    }
    expect(failures).toEqual([]);
  });

  it("answers 403 to a browser credential for another organization's project", async () => {
    const failures: string[] = [];
    for (const route of routes.filter((r) => r.path.includes(':projectId'))) {
      const response = await t.request(route.method, concrete(route.path, foreignProject), {
        ...(await browser()),
        ...(isMutation(route.method) ? { body: {} } : {}),
      });
      if (response.status !== 403) failures.push(`${route.method} ${route.path} → ${response.status}`);
    }
    expect(failures).toEqual([]);
  });

  it('answers 403 to a browser mutation without the allowed Origin', async () => {
    const failures: string[] = [];
    for (const route of routes.filter((r) => isMutation(r.method) && !PUBLIC.has(`${r.method} ${r.path}`))) {
      const credential = await browser();
      const response = await t.request(route.method, concrete(route.path, ownProject), {
        ...credential,
        origin: null,
        headers: { ...credential.headers, origin: 'https://evil.example' },
        body: {},
      });
      const body = await response.json().catch(() => null);
      if (response.status !== 403 || body?.error?.message !== 'Request origin is not allowed')
        failures.push(`${route.method} ${route.path} → ${response.status}`);
    }
    expect(failures).toEqual([]);
  });

  it('answers 400 to a mutation without an Idempotency-Key', async () => {
    const failures: string[] = [];
    for (const route of routes.filter((r) => isMutation(r.method) && !takesNoIdempotencyKeyBySpec(r.path.replace(/:\w+/g, 'x')))) {
      const response = await t.request(route.method, concrete(route.path, ownProject), { apiKey: key, body: {}, idempotencyKey: null });
      const body = await response.json();
      if (response.status !== 400 || !/Idempotency-Key/.test(body.error?.message ?? '')) failures.push(`${route.method} ${route.path} → ${response.status}`);
    }
    expect(failures).toEqual([]);
  });

  it('answers a malformed body with the error envelope, never a 500', async () => {
    const failures: string[] = [];
    for (const route of routes.filter((r) => isMutation(r.method) && !PUBLIC.has(`${r.method} ${r.path}`))) {
      for (const rawBody of ['{"unterminated": ', '[1, 2, 3]', '"a string"', '{"unknownField": true}']) {
        const response = await t.request(route.method, concrete(route.path, ownProject), { apiKey: key, rawBody });
        const body = await response.json().catch(() => null);
        const requestId = response.headers.get('x-request-id');
        const ok = response.status >= 400 && response.status < 500 && body?.error?.requestId === requestId && typeof body?.error?.code === 'string';
        if (!ok) failures.push(`${route.method} ${route.path} ${rawBody} → ${response.status}`);
      }
    }
    expect(failures).toEqual([]);
  });
});
