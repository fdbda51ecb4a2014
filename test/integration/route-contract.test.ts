import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { organizations, projects } from '../../db/schema/index.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { isMutation } from '../../api/mutations.ts';

/**
 * The shared checks every route gets (STYLE.md "Tests"), over every route the app registers —
 * so a route added later is covered without anyone remembering to: no key 401, a project of
 * another organization 403, a missing Idempotency-Key 400 on mutations, and a malformed body
 * answered with the error envelope, never a 500.
 */
let t: TestApp;
let key: string;
let ownProject: string;
let foreignProject: string;
type Route = { method: string; path: string };
let routes: Route[];

const PUBLIC = new Set(['GET /v1/auth/provider', 'POST /v1/auth/development/login']);

beforeAll(async () => {
  t = await createTestApp();
  ownProject = (await t.login()).context.project.id;
  key = (await t.createApiKey(['*'])).secret;
  const [org] = await t.database.db.insert(organizations).values({ slug: `other-${randomUUID()}`, name: 'Other' }).returning();
  const [project] = await t.database.db.insert(projects).values({ organizationId: org!.id, slug: 'theirs', name: 'Theirs' }).returning();
  foreignProject = project!.id;
  const seen = new Set<string>();
  routes = t.app.routes
    .filter((route) => route.path.startsWith('/v1/') && route.method !== 'ALL' && !route.path.includes('*'))
    .filter((route) => {
      const id = `${route.method} ${route.path}`;
      if (seen.has(id)) return false;
      seen.add(id);
      return true;
    })
    .map(({ method, path }) => ({ method, path }));
});
afterAll(() => t.close());

/** A concrete path: the project parameter as given, every other parameter a fresh UUID. */
const concrete = (path: string, projectId: string) =>
  path.replace(/:projectId/g, projectId).replace(/:(\w+)(\{[^}]*\})?/g, (_, name: string) => (name === 'path' ? 'notes.md' : randomUUID()));

describe('every route', () => {
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

  it('answers 400 to a mutation without an Idempotency-Key', async () => {
    const failures: string[] = [];
    for (const route of routes.filter((r) => isMutation(r.method) && !r.path.startsWith('/v1/auth/'))) {
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
