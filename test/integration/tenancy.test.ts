import { randomUUID } from 'node:crypto';
import { systemContext } from '../../services/kernel/service-context.ts';
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../../db/client.ts';
import { auditEntries, projects } from '../../db/schema/index.ts';
import { createBrowserSession } from '../../services/access/auth/index.ts';
import { agentProtocolsOfProject } from '../../services/access/projects/index.ts';
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

describe('agent protocol switches (docs/decisions/agent-protocol-switches.md)', () => {
  const systemCtx = () => systemContext({ db: t.database.db, logger: t.deps.logger, clock: t.deps.clock });
  const patch = (projectId: string, body: unknown, options: { apiKey?: string } = {}) =>
    t.request('PATCH', `/v1/projects/${projectId}`, options.apiKey ? { apiKey: options.apiKey, body } : { cookie, body });
  const stored = async (projectId: string) =>
    (await t.database.db.select({ a2a: projects.a2aEnabled, mcp: projects.mcpServerEnabled }).from(projects).where(eq(projects.id, projectId)))[0];

  it('are both on for a new project, in every shape of it', async () => {
    const created = await t.request('POST', '/v1/projects', { cookie, body: { slug: 'protocols-default', name: 'Defaults' } });
    expect(created.status).toBe(201);
    const project = await json(created);
    expect(project.agentProtocols).toEqual({ a2a: true, mcp: true });
    expect((await json(await t.request('GET', `/v1/projects/${project.id}`, { cookie }))).agentProtocols).toEqual({ a2a: true, mcp: true });
    const list = await json(await t.request('GET', '/v1/projects?limit=200', { cookie }));
    expect(list.data.find((entry: { id: string }) => entry.id === project.id).agentProtocols).toEqual({ a2a: true, mcp: true });
    const context = await json(await t.request('GET', '/v1/context', { cookie }));
    expect(context.project.agentProtocols).toEqual({ a2a: true, mcp: true });
    expect(await agentProtocolsOfProject(systemCtx(), project.id)).toEqual({ a2a: true, mcp: true });
  });

  it('PATCH switches one off and keeps the other, persisted, audited and read back by agentProtocolsOfProject', async () => {
    const project = await json(await t.request('POST', '/v1/projects', { cookie, body: { slug: 'protocols-patch', name: 'Patch' } }));
    const patched = await patch(project.id, { agentProtocols: { mcp: false } });
    expect(patched.status).toBe(200);
    const body = await json(patched);
    expect(body).toMatchObject({ id: project.id, agentProtocols: { a2a: true, mcp: false }, retention: { sessions: null, events: null }, budget: null });
    expect((await json(await t.request('GET', `/v1/projects/${project.id}`, { cookie }))).agentProtocols).toEqual({ a2a: true, mcp: false });
    const list = await json(await t.request('GET', '/v1/projects?limit=200', { cookie }));
    expect(list.data.find((entry: { id: string }) => entry.id === project.id).agentProtocols).toEqual({ a2a: true, mcp: false });
    expect(await stored(project.id)).toEqual({ a2a: true, mcp: false });
    expect(await agentProtocolsOfProject(systemCtx(), project.id)).toEqual({ a2a: true, mcp: false });

    // Both at once, beside another change; then a retention-only change leaves them be.
    const both = await json(await patch(project.id, { agentProtocols: { a2a: false, mcp: true }, retention: { sessions: '30d' } }));
    expect(both).toMatchObject({ agentProtocols: { a2a: false, mcp: true }, retention: { sessions: '30d' } });
    const retentionOnly = await json(await patch(project.id, { retention: { sessions: null } }));
    expect(retentionOnly.agentProtocols).toEqual({ a2a: false, mcp: true });
    expect(await agentProtocolsOfProject(systemCtx(), project.id)).toEqual({ a2a: false, mcp: true });

    const audits = await t.database.db
      .select({ details: auditEntries.details })
      .from(auditEntries)
      .where(and(eq(auditEntries.action, 'project.agent_protocols_changed'), eq(auditEntries.targetId, project.id)));
    expect(audits.map((entry) => entry.details)).toEqual(
      expect.arrayContaining([
        { before: { a2a: true, mcp: true }, after: { a2a: true, mcp: false } },
        { before: { a2a: true, mcp: false }, after: { a2a: false, mcp: true } },
      ]),
    );
    expect(audits).toHaveLength(2); // the retention-only change wrote none

    await expect(agentProtocolsOfProject(systemCtx(), randomUUID())).rejects.toMatchObject({ name: 'NotFoundError', code: 'not_found' });
    await expect(agentProtocolsOfProject(systemCtx(), 'not-a-uuid')).rejects.toMatchObject({ name: 'NotFoundError' });
  });

  it('refuses bad values with a 400 naming the field, and callers without project:admin with a 403', async () => {
    const project = await json(await t.request('POST', '/v1/projects', { cookie, body: { slug: 'protocols-refused', name: 'Refused' } }));
    for (const [body, path] of [
      [{ agentProtocols: { mcp: 'off' } }, 'body.agentProtocols.mcp'],
      [{ agentProtocols: { mcp: null } }, 'body.agentProtocols.mcp'],
      [{ agentProtocols: { mcp: 0 } }, 'body.agentProtocols.mcp'],
      [{ agentProtocols: { a2a: 'true', mcp: false } }, 'body.agentProtocols.a2a'],
      [{ agentProtocols: { mcp: false, grpc: false } }, 'body.agentProtocols.grpc'],
      [{ agentProtocols: {} }, 'body.agentProtocols'],
      [{ agentProtocols: false }, 'body.agentProtocols'],
      [{ agentProtocols: null }, 'body.agentProtocols'],
    ] as const) {
      const response = await patch(project.id, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      const error = (await json(response)).error;
      expect(error.code).toBe('bad_request');
      expect(error.details.path, JSON.stringify(body)).toBe(path);
    }
    const { secret } = await t.createApiKey(['agent:read', 'agent:write', 'mcp:write']);
    const denied = await patch(project.id, { agentProtocols: { mcp: false } }, { apiKey: secret });
    expect(denied.status).toBe(403);
    expect((await json(denied)).error.code).toBe('forbidden');
    // A person with the member role (signed in with a cookie session) is refused too.
    expect(
      (await t.request('POST', `/v1/projects/${homeProjectId}/members`, { cookie, body: { subject: 'user:protocols-member', role: 'member' } })).status,
    ).toBe(201);
    const session = await createBrowserSession({
      ctx: systemCtx(),
      input: { organizationId, subject: 'user:protocols-member', projectId: homeProjectId },
    });
    const asMember = await t.request('PATCH', `/v1/projects/${project.id}`, {
      cookie: `svc_session=${session.token}`,
      body: { agentProtocols: { mcp: false } },
    });
    expect(asMember.status).toBe(403);
    expect((await json(asMember)).error.message).toMatch(/owner or admin|scope/);
    // Nothing changed by any of them.
    expect(await stored(project.id)).toEqual({ a2a: true, mcp: true });
    const audits = await t.database.db
      .select()
      .from(auditEntries)
      .where(and(eq(auditEntries.action, 'project.agent_protocols_changed'), eq(auditEntries.targetId, project.id)));
    expect(audits).toEqual([]);
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
