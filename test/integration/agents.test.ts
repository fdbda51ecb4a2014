import { createHash } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agents, auditEntries } from '../../db/schema/index.ts';
import { canonicalAgentConfig, parseAgentConfig } from '../../domain/agent-config/index.ts';
import { createProvider, errorOf } from '../fixtures/model-vendors/helpers.ts';
import { startFakeModelProviders, type FakeModelProviders } from '../fixtures/model-vendors/catalog-server.ts';
import { createTestApp, type TestApp } from '../support/app.ts';

let t: TestApp;
let fakes: FakeModelProviders;
let projectId: string;
let admin: string;

const tool = (name: string, properties: Record<string, unknown> = { query: { type: 'string' } }) => ({
  name,
  description: `The ${name} tool`,
  owner: 'caller',
  approval: 'never',
  inputSchema: { type: 'object', properties, required: Object.keys(properties) },
  outputSchema: { type: 'object', properties: { answer: { type: 'string' } } },
});

const config = (overrides: Record<string, unknown> = {}) => ({
  systemPrompt: 'You are a careful assistant for the support team.',
  modelPreset: 'fast',
  tools: [tool('lookup_order')],
  limits: { maxTurns: 8 },
  ...overrides,
});

beforeAll(async () => {
  fakes = await startFakeModelProviders();
  t = await createTestApp({ env: fakes.env });
  projectId = (await t.login()).context.project.id;
  admin = (await t.createApiKey(['*'])).secret;
  const provider = await createProvider(t, { apiKey: admin, projectId, key: 'openai', providerType: 'vendor_a' });
  const preset = await t.request('POST', `/v1/projects/${projectId}/model-presets`, {
    apiKey: admin,
    body: { key: 'fast', displayName: 'Fast', providerId: provider.id, model: 'vendor_a/gpt-5.1', routing: {}, settings: { effort: 'low' } },
  });
  expect(preset.status, await preset.clone().text()).toBe(201);
});
afterAll(async () => {
  await t?.close();
  await fakes?.close();
});

const createAgent = (body: unknown, apiKey = admin) => t.request('POST', `/v1/projects/${projectId}/agents`, { apiKey, body });
const agentCount = async () => (await t.database.db.select().from(agents).where(eq(agents.projectId, projectId))).length;

describe('agents', () => {
  it('create publishes version 1 and returns the agent object', async () => {
    const response = await createAgent({ name: 'Support Bot', description: '', initialConfig: config() });
    expect(response.status).toBe(201);
    const agent = await response.json();
    expect(agent).toMatchObject({ projectId, key: 'support-bot', name: 'Support Bot', description: '', version: 1, model: 'fast', status: 'published' });
    expect(agent.sandbox).toMatchObject({ enabled: false });
    expect(agent.versions).toHaveLength(1);
    const [v1] = agent.versions;
    expect(v1).toMatchObject({ agentDefinitionId: agent.id, version: 1, id: agent.latestVersionId });
    expect(v1.config.tools[0].schemaVersion).toBe(1);
    expect(v1.config.limits.timeoutMs).toBe(60_000);
    // The content hash is the SHA-256 of the canonical config with defaults applied.
    const canonical = canonicalAgentConfig(parseAgentConfig(config()));
    expect(v1.contentHash).toBe(createHash('sha256').update(canonical).digest('hex'));

    const second = await (await createAgent({ name: 'Support Bot', config: config() })).json();
    expect(second.key).toBe('support-bot-2');
    const list = await (await t.request('GET', `/v1/projects/${projectId}/agents`, { apiKey: admin })).json();
    expect(list.data.map((a: { key: string }) => a.key)).toEqual(expect.arrayContaining(['support-bot', 'support-bot-2']));
    expect(list.data[0].sandbox).toBeDefined();
    expect(list.data[0]).not.toHaveProperty('versions');
  });

  it('refuses bad configs before any row is created, naming the path', async () => {
    const before = await agentCount();
    const cases: Array<[unknown, string]> = [
      [{ name: 'x', initialConfig: config({ modelPreset: 'no-such-preset' }) }, 'body.initialConfig.modelPreset'],
      [{ name: 'x', config: config({ tools: [tool('login', { password: { type: 'string' } })] }) }, 'body.config.tools[0].inputSchema.properties.password'],
      [{ name: 'x', config: config({ tools: [tool('delegate_agent')] }) }, 'body.config.tools[0].name'],
      [{ name: 'x', config: config({ limits: { maxTurns: 0 } }) }, 'body.config.limits.maxTurns'],
      [
        { name: 'x', config: config({ tools: [{ ...tool('t'), inputSchema: { type: 'object', properties: { a: { type: 'string', pattern: '^a' } } } }] }) },
        'body.config.tools[0].inputSchema.properties.a.pattern',
      ],
    ];
    for (const [body, path] of cases) {
      const response = await createAgent(body);
      expect(response.status).toBe(400);
      const error = await errorOf(response);
      expect(error.code).toBe('bad_request');
      expect(error.details.path).toBe(path);
    }
    const both = await createAgent({ name: 'x', config: config(), initialConfig: config() });
    expect(both.status).toBe(400);
    expect(await agentCount()).toBe(before);
  });

  it('publishes complete next configs; a known content hash conflicts', async () => {
    const agent = await (await createAgent({ name: 'Versioned', initialConfig: config() })).json();
    const versions = `/v1/projects/${projectId}/agents/${agent.id}/versions`;
    const v2 = await t.request('POST', versions, { apiKey: admin, body: { config: config({ systemPrompt: 'Second prompt for the support team.' }) } });
    expect(v2.status).toBe(201);
    expect(await v2.json()).toMatchObject({ version: 2, agentDefinitionId: agent.id });
    // The same content as version 1, keys reordered and defaults spelled out: still a conflict.
    const sameAsV1 = { limits: { timeoutMs: 60_000, maxTurns: 8 }, tools: [tool('lookup_order')], modelPreset: 'fast', systemPrompt: config().systemPrompt };
    const again = await t.request('POST', versions, { apiKey: admin, body: { config: sameAsV1 } });
    expect(again.status).toBe(409);
    expect((await errorOf(again)).details.version).toBe(1);
    const detail = await (await t.request('GET', `/v1/projects/${projectId}/agents/${agent.id}`, { apiKey: admin })).json();
    expect(detail.version).toBe(2);
    expect(detail.versions.map((v: { version: number }) => v.version)).toEqual([2, 1]);
    const listed = await (await t.request('GET', versions, { apiKey: admin })).json();
    expect(listed.data).toHaveLength(2);
  });

  it('DELETE archives: 404 everywhere, key released, versions kept, audit agent.deleted', async () => {
    const agent = await (await createAgent({ name: 'Doomed', key: 'doomed', initialConfig: config() })).json();
    const path = `/v1/projects/${projectId}/agents/${agent.id}`;
    expect(await (await t.request('DELETE', path, { apiKey: admin })).json()).toEqual({ id: agent.id, deleted: true });
    expect((await t.request('GET', path, { apiKey: admin })).status).toBe(404);
    expect((await t.request('GET', `${path}/versions`, { apiKey: admin })).status).toBe(404);
    expect((await t.request('POST', `${path}/versions`, { apiKey: admin, body: { config: config() } })).status).toBe(404);
    expect((await t.request('DELETE', path, { apiKey: admin })).status).toBe(404);
    const reused = await createAgent({ name: 'Doomed again', key: 'doomed', initialConfig: config() });
    expect(reused.status).toBe(201);
    const audit = await t.database.db
      .select()
      .from(auditEntries)
      .where(and(eq(auditEntries.action, 'agent.deleted'), eq(auditEntries.targetId, agent.id)));
    expect(audit).toHaveLength(1);
    // A delegate may not point at an archived agent's version.
    const coordinator = await createAgent({
      name: 'Coordinator',
      initialConfig: config({ delegates: [{ key: 'helper', description: 'Helps', agentVersionId: agent.latestVersionId, maxParallel: 2 }] }),
    });
    expect(coordinator.status).toBe(400);
    expect((await errorOf(coordinator)).details.path).toBe('body.initialConfig.delegates[0].agentVersionId');
  });

  it('delegates name exact versions of other agents in the project', async () => {
    const child = await (await createAgent({ name: 'Child', initialConfig: config() })).json();
    const coordinator = await createAgent({
      name: 'Parent',
      initialConfig: config({ delegates: [{ key: 'child', description: 'Does the work', agentVersionId: child.latestVersionId, maxParallel: 8 }] }),
    });
    expect(coordinator.status).toBe(201);
    const tooMany = await createAgent({
      name: 'Parent 2',
      initialConfig: config({ delegates: [{ key: 'child', description: 'x', agentVersionId: child.latestVersionId, maxParallel: 9 }] }),
    });
    expect((await errorOf(tooMany)).details.path).toBe('body.initialConfig.delegates[0].maxParallel');
  });

  it('needs agent:write, and skill:bind to bind Skills; replays by Idempotency-Key', async () => {
    const reader = (await t.createApiKey(['agent:read'])).secret;
    const denied = await createAgent({ name: 'Nope', initialConfig: config() }, reader);
    expect(denied.status).toBe(403);
    expect((await errorOf(denied)).message).toContain('agent:write');
    const writer = (await t.createApiKey(['agent:write', 'agent:read'])).secret;
    const noBind = await createAgent({ name: 'Binder', initialConfig: config({ skillVersionIds: ['00000000-0000-4000-8000-000000000000'] }) }, writer);
    expect(noBind.status).toBe(403);
    expect((await errorOf(noBind)).message).toContain('skill:bind');

    const body = { name: 'Replayed', initialConfig: config() };
    const first = await t.request('POST', `/v1/projects/${projectId}/agents`, { apiKey: admin, body, idempotencyKey: 'agent-replay' });
    const second = await t.request('POST', `/v1/projects/${projectId}/agents`, { apiKey: admin, body, idempotencyKey: 'agent-replay' });
    expect(second.headers.get('idempotency-replayed')).toBe('true');
    expect((await second.json()).id).toBe((await first.json()).id);
  });
});
