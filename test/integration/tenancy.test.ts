import { systemContext } from '../../services/kernel/service-context.ts';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../../db/client.ts';
import { appendProductEvent } from '../../services/kernel/events/index.ts';
import { createTestApp, type TestApp, type TestResponse } from '../support/app.ts';

let t: TestApp;
let cookie: string;
let homeProjectId: string;
let organizationId: string;

beforeAll(async () => {
  t = await createTestApp();
  const login = await t.login();
  cookie = login.cookie;
  homeProjectId = login.context.project.id;
  organizationId = login.context.organization.id;
});
afterAll(() => t.close());

const json = async (response: TestResponse) => response.json();

describe('GET /context', () => {
  it('returns the whole context object', async () => {
    const context = await json(await t.request('GET', '/v1/context', { cookie }));
    expect(context.currency).toBe('USD');
    expect(Object.keys(context).sort()).toEqual(
      ['activeModelPresets', 'authProvider', 'currency', 'organization', 'organizations', 'principal', 'project', 'projects'].sort(),
    );
    expect(context.principal).toMatchObject({ organizationId, projectId: homeProjectId, kind: 'human', subject: 'development:owner' });
    expect(context.organizations).toEqual([context.organization]);
    expect(context.projects.map((p: { id: string }) => p.id)).toContain(homeProjectId);
    expect(context.activeModelPresets).toEqual([]);
  });
});

describe('organizations and projects', () => {
  it('lists and reads the organization', async () => {
    const list = await json(await t.request('GET', '/v1/organizations', { cookie }));
    expect(list.data).toHaveLength(1);
    expect(list.data[0]).toMatchObject({ id: organizationId, slug: 'default' });
    const one = await json(await t.request('GET', `/v1/organizations/${organizationId}`, { cookie }));
    expect(Object.keys(one).sort()).toEqual(['createdAt', 'id', 'name', 'slug']);
  });

  it('creates projects with unique slugs and pages through them', async () => {
    const created = await t.request('POST', '/v1/projects', { cookie, body: { slug: 'alpha', name: 'Alpha' } });
    expect(created.status).toBe(201);
    const alpha = await json(created);
    expect(alpha).toMatchObject({ organizationId, slug: 'alpha', name: 'Alpha' });
    expect(alpha.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect((await t.request('POST', '/v1/projects', { cookie, body: { slug: 'alpha', name: 'Again' } })).status).toBe(409);
    for (const slug of ['beta', 'gamma']) await t.request('POST', '/v1/projects', { cookie, body: { slug, name: slug } });
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await json(await t.request('GET', `/v1/projects?limit=2${cursor ? `&cursor=${cursor}` : ''}`, { cookie }));
      expect(page.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.data.map((p: { slug: string }) => p.slug));
      cursor = page.pageInfo.nextCursor;
    } while (cursor);
    expect(seen).toEqual(['default', 'alpha', 'beta', 'gamma']);
    const detail = await json(await t.request('GET', `/v1/projects/${alpha.id}`, { cookie }));
    expect(detail.organization.id).toBe(organizationId);
  });

  it('provisions a human creator into the new project as owner', async () => {
    const project = await json(await t.request('POST', '/v1/projects', { cookie, body: { slug: 'provisioned', name: 'P' } }));
    const switched = await json(await t.request('POST', '/v1/auth/switch-project', { cookie, body: { projectId: project.id } }));
    expect(switched.principal).toMatchObject({ projectId: project.id, projectRole: 'owner', organizationRole: 'owner', scopes: ['*'] });
    await t.request('POST', '/v1/auth/switch-project', { cookie, body: { projectId: homeProjectId } });
  });

  it('API key creators need project:admin; humans also need an organization admin role', async () => {
    const { secret } = await t.createApiKey(['agent:read']);
    const denied = await t.request('POST', '/v1/projects', { apiKey: secret, body: { slug: 'nope', name: 'N' } });
    expect(denied.status).toBe(403);
    const viewer = await t.request('POST', `/v1/projects/${homeProjectId}/members`, {
      cookie,
      body: { subject: 'user:viewer', role: 'viewer', scopes: ['agent:read'] },
    });
    expect(viewer.status).toBe(201);
  });

  it('deletes a project and every row it owns, and refuses the acting and last project', async () => {
    const doomed = await json(await t.request('POST', '/v1/projects', { cookie, body: { slug: 'doomed', name: 'D' } }));
    const { secret } = await t.createApiKey(['*']);
    // Give the project rows in every kind of owned table.
    await t.request('GET', `/v1/projects/${doomed.id}/members`, { apiKey: secret });
    await t.request('POST', `/v1/projects/${doomed.id}/api-keys`, { apiKey: secret, body: { name: 'in doomed', scopes: ['agent:read'] } });
    await appendProductEvent(systemContext({ db: t.database.db, logger: t.deps.logger, clock: t.deps.clock }), {
      organizationId,
      projectId: doomed.id,
      aggregateType: 'project',
      aggregateId: doomed.id,
      kind: 'test.event',
      publicPayload: {},
    });
    expect(await ownedRowCount(doomed.id)).toBeGreaterThan(3);

    const acting = await t.request('DELETE', `/v1/projects/${homeProjectId}`, { cookie });
    expect(acting.status).toBe(409);
    const deleted = await t.request('DELETE', `/v1/projects/${doomed.id}`, { cookie });
    expect(deleted.status).toBe(200);
    expect(await json(deleted)).toEqual({ id: doomed.id, deleted: true });
    expect(await ownedRowCount(doomed.id)).toBe(0);
    expect((await t.request('GET', `/v1/projects/${doomed.id}`, { cookie })).status).toBe(403);
    // The key issued inside the deleted project is organization-scoped and keeps working.
    expect((await t.request('GET', '/v1/context', { apiKey: secret })).status).toBe(200);

    const list = await json(await t.request('GET', '/v1/projects?limit=200', { cookie }));
    for (const project of list.data) {
      if (project.id !== homeProjectId) expect((await t.request('DELETE', `/v1/projects/${project.id}`, { cookie })).status).toBe(200);
    }
    // Now only the acting project remains; an API key acting elsewhere is refused too.
    const last = await t.request('DELETE', `/v1/projects/${homeProjectId}`, { apiKey: secret });
    expect(last.status).toBe(409);
  });
});

describe('members', () => {
  it('creates, updates and removes members with role rules', async () => {
    const created = await t.request('POST', `/v1/projects/${homeProjectId}/members`, {
      cookie,
      body: { subject: 'user:ada', role: 'member', scopes: ['agent:read', 'agent:write'] },
    });
    expect(created.status).toBe(201);
    const ada = await json(created);
    expect(ada).toMatchObject({ subject: 'user:ada', role: 'member', organizationRole: 'member', scopes: ['agent:read', 'agent:write'] });
    const again = await t.request('POST', `/v1/projects/${homeProjectId}/members`, {
      cookie,
      body: { subject: 'user:ada', role: 'admin', scopes: ['agent:read'] },
    });
    expect(again.status).toBe(200);
    expect((await json(again)).role).toBe('admin');
    const patched = await json(await t.request('PATCH', `/v1/projects/${homeProjectId}/members/${ada.id}`, { cookie, body: { role: 'viewer' } }));
    expect(patched.role).toBe('viewer');
    const list = await json(await t.request('GET', `/v1/projects/${homeProjectId}/members`, { cookie }));
    expect(list.data.map((m: { subject: string }) => m.subject)).toEqual(expect.arrayContaining(['development:owner', 'user:ada']));
    const removed = await t.request('DELETE', `/v1/projects/${homeProjectId}/members/${ada.id}`, { cookie });
    expect(await json(removed)).toEqual({ id: ada.id, removed: true });
    expect((await t.request('DELETE', `/v1/projects/${homeProjectId}/members/${ada.id}`, { cookie })).status).toBe(404);
  });

  it('the active principal cannot remove or change itself; API keys cannot grant human access', async () => {
    const context = await json(await t.request('GET', '/v1/context', { cookie }));
    expect((await t.request('DELETE', `/v1/projects/${homeProjectId}/members/${context.principal.id}`, { cookie })).status).toBe(403);
    expect((await t.request('PATCH', `/v1/projects/${homeProjectId}/members/${context.principal.id}`, { cookie, body: { role: 'viewer' } })).status).toBe(403);
    const { secret } = await t.createApiKey(['*']);
    const byKey = await t.request('POST', `/v1/projects/${homeProjectId}/members`, {
      apiKey: secret,
      body: { subject: 'user:bob', role: 'member', scopes: [] },
    });
    expect(byKey.status).toBe(400); // empty scopes are invalid before any permission check
    const byKey2 = await t.request('POST', `/v1/projects/${homeProjectId}/members`, {
      apiKey: secret,
      body: { subject: 'user:bob', role: 'member', scopes: ['agent:read'] },
    });
    expect(byKey2.status).toBe(403);
  });
});

/** Rows referencing the project in every table that has a project_id column (future tables too). */
async function ownedRowCount(projectId: string): Promise<number> {
  const tables = rowsOf<{ table_name: string }>(
    await t.database.db.execute(sql`select table_name from information_schema.columns where column_name = 'project_id' and table_schema = 'public'`),
  );
  let total = 0;
  for (const { table_name } of tables) {
    const [row] = rowsOf<{ n: number | string }>(
      await t.database.db.execute(sql`select count(*) as n from ${sql.identifier(table_name)} where project_id = ${projectId}`),
    );
    total += Number(row!.n);
  }
  return total;
}
