import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import Ajv2020 from 'ajv/dist/2020.js';
import { desc, sql } from 'drizzle-orm';
import { mcpServerVersions } from '../../db/schema/index.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendProductEvent } from '../../services/kernel/events/index.ts';
import { createBrowserSession } from '../../services/access/auth/index.ts';
import { systemContext } from '../../services/kernel/service-context.ts';
import { startMcpFixtureServer, type McpFixtureServer } from '../fixtures/mcp/server.ts';
import { startFakeModelServers, type FakeModelServers } from '../fixtures/model-vendors/chat-server.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../fixtures/webhook-receiver/receiver.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { buildRichOrganization, RICH_MEMORY_CONTENT, RICH_SECRETS, type RichOrganization } from '../support/rich-organization.ts';
import { startRunApp } from '../support/run-app.ts';
import { waitFor } from '../support/worker-process.ts';
import { temporalScheduleId } from '../../domain/schedules/workflow.ts';

/**
 * Configuration backup and restore (spec 1 "Configuration backup file", spec 2 rules 1-5): a
 * rich organization backed up, restored into a fresh installation (its own database, worker and
 * fake vendors) where a restored agent runs and a restored webhook delivers only new events, the
 * refusal table, malformed files, a restore failing mid-way, and who may do it.
 */
let mcp: McpFixtureServer;
let fakes: FakeModelServers;
let receiver: WebhookReceiver;
let source: TestApp;
let sourceKey: string;
let organizationId: string;
let rich: RichOrganization;
let backupText: string;
let backup: any;
let backupProviderId: string | undefined;

const TABLES = [
  'projects',
  'agents',
  'agent_versions',
  'skills',
  'skill_versions',
  'model_providers',
  'model_presets',
  'sandbox_providers',
  'storage_providers',
  'mcp_servers',
  'mcp_server_versions',
  'mcp_credentials',
  'mcp_credential_policies',
  'mcp_toolsets',
  'event_webhooks',
  'schedules',
  'memory_stores',
  'audit_entries',
];
async function rowCounts(app: TestApp): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of TABLES) {
    const result = await app.database.db.execute(sql.raw(`select count(*)::int as n from ${table}`));
    counts[table] = Number((result as unknown as { rows?: Array<{ n: number }> }).rows?.[0]?.n ?? (result as unknown as Array<{ n: number }>)[0]?.n);
  }
  return counts;
}

/** The credentials object a restore of `file` needs, from the secrets the set-up used. */
function credentialsFor(file: any) {
  const byKey = (list: any[], key: string) => list.find((entry) => entry.key === key).id;
  const webhooks = file.projects.flatMap((project: any) => project.eventWebhooks);
  return {
    modelProviders: {
      [byKey(
        file.modelProviders.filter((entry: any) => !entry.archived),
        'openai',
      )]: rich.credentials.modelProvider,
    },
    sandboxProviders: { [byKey(file.sandboxProviders, 'sandbox')]: rich.credentials.sandboxProvider },
    storageProviders: { [byKey(file.storageProviders, 'archive')]: rich.credentials.storage },
    mcpCredentials: { [byKey(file.mcpCredentials, 'tools-token')]: rich.credentials.mcpCredential },
    eventWebhooks: Object.fromEntries(
      webhooks.map((webhook: any) => [webhook.id, webhook.displayName === 'Receiver' ? RICH_SECRETS.webhookSecrets[0] : RICH_SECRETS.webhookSecrets[1]]),
    ),
  };
}

beforeAll(async () => {
  mcp = await startMcpFixtureServer();
  mcp.requireHeader('authorization', `Bearer ${RICH_SECRETS.mcpBearer}`);
  receiver = await startWebhookReceiver();
  fakes = await startFakeModelServers();
  source = await createTestApp({ env: { ...fakes.env, SVC_OUTBOUND_ALLOW_PRIVATE_NETWORK: 'true' } });
  const { context } = await source.login();
  organizationId = context.organization.id;
  sourceKey = (await source.createApiKey(['*'])).secret;
  rich = await buildRichOrganization(source, {
    apiKey: sourceKey,
    projectId: context.project.id,
    mcpUrl: mcp.streamableUrl,
    mcpOrigin: mcp.url,
    webhookUrl: receiver.url,
  });
  const response = await source.request('GET', `/v1/organizations/${organizationId}/configuration-backup`, { apiKey: sourceKey });
  expect(response.status).toBe(200);
  backupText = await response.text();
  backup = JSON.parse(backupText);
}, 120_000);
afterAll(async () => {
  await source?.close();
  await receiver?.close();
  await mcp?.close();
  await fakes?.close();
});

describe('configuration backup', () => {
  it('is one dated attachment, byte-identical for an unchanged organization, and valid against the published schema', async () => {
    const again = await source.request('GET', `/v1/organizations/${organizationId}/configuration-backup`, { apiKey: sourceKey });
    expect(again.headers.get('content-disposition')).toMatch(/^attachment; filename="svc-configuration-default-\d{4}-\d{2}-\d{2}\.json"$/);
    expect(await again.text()).toBe(backupText);

    const schema = JSON.parse(fs.readFileSync(new URL('../../docs/configuration-backup.schema.json', import.meta.url), 'utf8'));
    const validate = new Ajv2020.default({ strict: false, allErrors: true }).compile(schema);
    expect(validate(backup), JSON.stringify(validate.errors?.slice(0, 3))).toBe(true);
    expect(validate({ ...backup, projects: [{ id: 'p', slug: 'x' }] })).toBe(false);
  });

  it('holds every kind of configuration and nothing else', () => {
    expect(backup).toMatchObject({ format: 'svc.organization-configuration', formatVersion: 1 });
    expect(Object.keys(backup).sort()).toEqual([
      'format',
      'formatVersion',
      'mcpCredentialPolicies',
      'mcpCredentials',
      'mcpServers',
      'modelProviders',
      'projects',
      'sandboxProviders',
      'storageProviders',
    ]);
    expect(backup.modelProviders.map((p: any) => [p.key, p.archived])).toEqual([
      ['openai', false],
      ['legacy', true],
    ]);
    expect(backup.modelProviders[0].credentialFingerprint).toMatch(/^[0-9a-f]{12}$/);
    expect(backup.mcpCredentials.map((c: any) => [c.key, c.revoked])).toEqual([
      ['tools-token', false],
      ['old-token', true],
    ]);
    expect(backup.mcpCredentialPolicies[0].versions.map((v: any) => v.version)).toEqual([1, 2]);
    expect(backup.mcpServers[0].versions.at(-1).tools.map((tool: any) => tool.name)).toContain('echo');
    expect(backup.storageProviders[0], JSON.stringify(backup.storageProviders[0])).toMatchObject({
      key: 'archive',
      isDefault: true,
      bucket: 'agents',
      prefix: 'svc',
    });

    const main = backup.projects.find((project: any) => project.slug === 'default');
    expect(backup.projects.map((project: any) => project.slug)).toEqual(['default', 'research']);
    expect(main.modelPresets.map((preset: any) => [preset.key, preset.archived])).toEqual([
      ['fast', false],
      ['retired', true],
    ]);
    // Prices and budgets are configuration: an unpriced preset and a project without a budget carry neither field.
    expect(main.modelPresets[0].prices).toEqual({ input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: null, source: 'operator' });
    expect(main.modelPresets[1]).not.toHaveProperty('prices');
    expect(main).not.toHaveProperty('budget');
    expect(backup.projects[1].budget).toEqual({ maxMonthlyCost: 250, maxMonthlyTokens: null });
    expect(main.skills.map((skill: any) => [skill.key, skill.enabled, skill.removed])).toEqual([
      ['refunds', true, false],
      ['tone', false, false],
      ['gone', true, true],
    ]);
    expect(main.skills[0].versions.map((version: any) => version.status)).toEqual(['revoked', 'active']);
    expect(main.skills[0].versions[0].files).toHaveLength(2);
    expect(main.agents.map((agent: any) => [agent.key, agent.archived, agent.versions.length])).toEqual([
      ['researcher', false, 1],
      ['helper', false, 3],
      ['old-helper', true, 1],
    ]);
    const helperConfig = main.agents[1].versions[2].config;
    expect(helperConfig.delegates[0].agentVersionId).toBe(main.agents[0].versions[0].id);
    expect(helperConfig.skillVersionIds).toEqual([main.skills[0].versions[1].id]);
    expect(helperConfig.mcpBindings[0]).toMatchObject({
      toolsetVersionId: main.mcpToolsets[0].versions[0].id,
      credentialPolicyVersionId: backup.mcpCredentialPolicies[0].versions[1].id,
    });
    expect(helperConfig.harnessOperations[0].key).toBe('summarize');
    expect(main.eventWebhooks.map((webhook: any) => [webhook.displayName, webhook.enabled])).toEqual([
      ['Receiver', true],
      ['Paused', false],
    ]);
    // Live schedules that open sessions, without pause state or files; a deleted one and one sending turns to a session are left out.
    expect(
      main.schedules.map((schedule: any) => [
        schedule.name,
        schedule.agentId,
        schedule.agentVersionId,
        schedule.cron,
        schedule.intervalSeconds,
        schedule.timeZone,
        schedule.overlap,
      ]),
    ).toEqual([
      ['Morning report', main.agents[1].id, null, '0 9 * * MON-FRI', null, 'Europe/Paris', 'skip'],
      [null, main.agents[0].id, main.agents[0].versions[0].id, null, 3600, 'UTC', 'buffer_one'],
    ]);
    expect(Object.keys(main.schedules[0]).sort()).toEqual([
      'agentId',
      'agentVersionId',
      'catchupWindowSeconds',
      'createdAt',
      'cron',
      'id',
      'intervalSeconds',
      'memoryStores',
      'message',
      'name',
      'overlap',
      'timeZone',
    ]);
    // A schedule's memory stores by the file ids of the stores; one attaching none carries no memoryStores.
    expect(main.schedules[0].memoryStores).toEqual([
      { storeId: main.memoryStores[0].id, access: 'read_write', instructions: 'One file per customer.' },
      { storeId: main.memoryStores[1].id, access: 'read_only', instructions: null },
    ]);
    expect(main.memoryStores.map((store: any) => store.id)).toEqual(['memoryStore-1', 'memoryStore-2']);
    expect(main.schedules[1]).not.toHaveProperty('memoryStores');
    expect(backup.projects[1]).not.toHaveProperty('schedules');
    // Memory stores by their definitions; memories are data, like transcripts, and stay out.
    expect(main.memoryStores.map((store: any) => [store.name, store.description, store.metadata, store.archived])).toEqual([
      ['Customer notes', 'What we know.', { team: 'support' }, false],
      ['Old notes', '', {}, true],
    ]);
    expect(Object.keys(main.memoryStores[0]).sort()).toEqual(['archived', 'createdAt', 'description', 'id', 'metadata', 'name']);
    expect(backupText).not.toContain(RICH_MEMORY_CONTENT);
    expect(backupText).not.toContain('/acme.md');
    expect(backup.projects[1]).not.toHaveProperty('memoryStores');

    for (const secret of rich.secrets) expect(backupText).not.toContain(secret);
    expect(backupText).not.toMatch(/whsec_|svc_[A-Za-z0-9_-]{20}|credentialCiphertext|"subject"|"members"|"sessions"|"runs"/);
  });
});

describe('blocked projects (rule 2)', () => {
  it('an existing project with the same slug is blocked by each kind of content, and filled when empty', async () => {
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await source.request(method, path, { apiKey: sourceKey, body });
      const json = await response.json();
      expect(response.status, `${method} ${path}: ${JSON.stringify(json)}`).toBeLessThan(300);
      return json;
    };
    const project = async (slug: string) => (await call('POST', '/v1/projects', { slug, name: slug })).id as string;
    const providerId = (backupProviderId ??= (await call('GET', `/v1/projects/${(await call('GET', '/v1/context')).project.id}/model-providers`)).data.find(
      (p: any) => p.key === 'openai',
    ).id);
    const preset = (projectId: string) =>
      call('POST', `/v1/projects/${projectId}/model-presets`, { key: 'fast', displayName: 'Fast', providerId, model: 'vendor_a/gpt-5.1', routing: {} });
    const [serverVersion] = await source.database.db.select().from(mcpServerVersions).orderBy(desc(mcpServerVersions.version)).limit(1);
    const serverVersionId = serverVersion!.id;

    const kinds: Array<[string, (projectId: string) => Promise<unknown>]> = [
      [
        'agents',
        async (id) => {
          await preset(id);
          await call('POST', `/v1/projects/${id}/agents`, {
            name: 'A',
            initialConfig: { systemPrompt: 'You are a helpful assistant.', modelPreset: 'fast', limits: { maxTurns: 2 } },
          });
        },
      ],
      ['Skills', (id) => call('POST', `/v1/projects/${id}/skills`, { key: 's', displayName: 'S', name: 's', description: 'S', instructions: 'S.' })],
      ['model presets', (id) => preset(id)],
      [
        'MCP toolsets',
        (id) => call('POST', `/v1/projects/${id}/mcp-toolsets`, { key: 't', displayName: 'T', serverVersionId, tools: [{ remoteToolName: 'echo' }] }),
      ],
      [
        'event webhooks',
        (id) =>
          call('POST', `/v1/projects/${id}/event-webhooks`, { displayName: 'W', endpointUrl: receiver.url, signingSecret: RICH_SECRETS.webhookSecrets[0] }),
      ],
      [
        'schedules',
        async (id) => {
          await preset(id);
          const agent = await call('POST', `/v1/projects/${id}/agents`, {
            name: 'A',
            initialConfig: { systemPrompt: 'You are a helpful assistant.', modelPreset: 'fast', limits: { maxTurns: 2 } },
          });
          await call('POST', `/v1/projects/${id}/schedules`, { agentId: agent.id, intervalSeconds: 3600, message: 'Hello.', paused: true });
        },
      ],
      ['memory stores', (id) => call('POST', `/v1/projects/${id}/memory-stores`, { name: 'Notes' })],
    ];
    for (const [kind, add] of kinds) {
      const slug = `blocked-${kind.toLowerCase().replace(/\s+/g, '-')}`;
      await add(await project(slug));
      const file = structuredClone(backup);
      file.projects[1].slug = slug;
      const plan = await (
        await source.request('POST', `/v1/organizations/${organizationId}/configuration-restore/preview`, {
          apiKey: sourceKey,
          idempotencyKey: null,
          body: { backup: file },
        })
      ).json();
      expect(plan.projects[1], kind).toMatchObject({ slug, action: 'blocked' });
      expect(plan.projects[1].reason, kind).toContain(kind);
      expect(plan.ready).toBe(false);
    }
    await project('empty-one');
    const file = structuredClone(backup);
    file.projects[1].slug = 'empty-one';
    const plan = await (
      await source.request('POST', `/v1/organizations/${organizationId}/configuration-restore/preview`, {
        apiKey: sourceKey,
        idempotencyKey: null,
        body: { backup: file },
      })
    ).json();
    expect(plan.projects[1]).toMatchObject({ slug: 'empty-one', action: 'fill_empty_project' });
  });
});

describe('restore into a fresh installation', () => {
  let target: Awaited<ReturnType<typeof startRunApp>>;
  let targetOrganization: string;

  beforeAll(async () => {
    target = await startRunApp({ seed: false, env: { SVC_OUTBOUND_ALLOW_PRIVATE_NETWORK: 'true' } });
    targetOrganization = (await (await target.t.request('GET', '/v1/context', { apiKey: target.apiKey })).json()).organization.id;
  }, 120_000);
  afterAll(() => target?.close());

  const restoreRoute = () => `/v1/organizations/${targetOrganization}/configuration-restore`;

  it('previews, restores, and backs up to the same file; a restored agent runs; a restored webhook delivers only new events', async () => {
    // An event from before the restore, which the restored webhook must never deliver.
    const ctx = systemContext({ db: target.t.database.db, logger: target.t.deps.logger });
    const before = await appendProductEvent(ctx, {
      organizationId: targetOrganization,
      projectId: target.projectId,
      aggregateType: 'run',
      aggregateId: randomUUID(),
      kind: 'run.progressed',
      publicPayload: { before: true },
    });

    const preview = await target.t.request('POST', `${restoreRoute()}/preview`, { apiKey: target.apiKey, idempotencyKey: null, body: { backup } });
    expect(preview.status).toBe(200);
    const plan = await preview.json();
    expect(plan).toMatchObject({ ready: true, conflicts: [], warnings: [] });
    expect(plan.projects).toEqual([
      { slug: 'default', name: 'Default project', action: 'fill_empty_project' },
      { slug: 'research', name: 'Research', action: 'create' },
    ]);
    expect(plan.counts).toMatchObject({
      projects: 2,
      agents: 4,
      agentVersions: 6,
      skills: 3,
      skillVersions: 4,
      eventWebhooks: 2,
      mcpServers: 1,
      schedules: 2,
      memoryStores: 2,
    });
    expect(plan.requiredCredentials.map((entry: any) => entry.kind).sort()).toEqual([
      'eventWebhooks',
      'eventWebhooks',
      'mcpCredentials',
      'modelProviders',
      'sandboxProviders',
      'storageProviders',
    ]);

    const restored = await target.t.request('POST', restoreRoute(), { apiKey: target.apiKey, body: { backup, credentials: credentialsFor(backup) } });
    const result = await restored.json();
    expect(restored.status, JSON.stringify(result)).toBe(201);
    expect(result.projects.map((project: any) => [project.slug, project.action])).toEqual([
      ['default', 'fill_empty_project'],
      ['research', 'create'],
    ]);
    expect(result.counts.agentVersions).toBe(6);

    const copy = await target.t.request('GET', `/v1/organizations/${targetOrganization}/configuration-backup`, { apiKey: target.apiKey });
    expect(await copy.text()).toBe(backupText);

    // Restored schedules are paused, and so are their Temporal Schedules (created after the commit).
    const schedules = (await target.call('GET', '/schedules')).body.data;
    expect(schedules.map((schedule: any) => [schedule.name, schedule.paused, schedule.createdByPrincipalId === schedules[0].createdByPrincipalId])).toEqual([
      [null, true, true],
      ['Morning report', true, true],
    ]);
    for (const schedule of schedules) {
      const described = await waitFor(
        'the restored Temporal Schedule',
        () =>
          target.runtime.client.client.schedule
            .getHandle(temporalScheduleId(schedule.id))
            .describe()
            .catch(() => null),
        60_000,
      );
      expect(described.state.paused).toBe(true);
    }

    // Restored memory stores are empty; the archived one stays read-only.
    const memoryStores = (await target.call('GET', '/memory-stores?includeArchived=true')).body.data;
    expect(memoryStores.map((store: any) => [store.name, store.memoryCount, store.versionCount, store.archivedAt !== null]).sort()).toEqual([
      ['Customer notes', 0, 0, false],
      ['Old notes', 0, 0, true],
    ]);
    // The restored schedule attaches the restored stores, by their new ids.
    const storeIdOf = (name: string) => memoryStores.find((store: any) => store.name === name).id;
    expect(schedules.find((schedule: any) => schedule.name === 'Morning report').memoryStores).toEqual([
      { storeId: storeIdOf('Customer notes'), access: 'read_write', instructions: 'One file per customer.' },
      { storeId: storeIdOf('Old notes'), access: 'read_only', instructions: null },
    ]);
    expect(schedules.find((schedule: any) => schedule.name === null).memoryStores).toEqual([]);

    const agents = (await target.call('GET', '/agents')).body.data;
    const helper = agents.find((agent: any) => agent.key === 'helper');
    const session = await target.call('POST', '/sessions', { agentId: helper.id, initialMessage: 'Hello after the restore' });
    expect(session.status, JSON.stringify(session.body)).toBe(201);
    const run = await target.waitForRun(session.body.run.id);
    expect(run.state).toBe('completed');

    await receiver.waitFor((requests) => requests.some((request) => request.body.data.events.some((event: any) => event.kind === 'run.completed')), 30_000);
    const delivered = receiver.requests.flatMap((request) => request.body.data.events);
    expect(delivered.every((event: any) => event.aggregateId === run.id)).toBe(true);
    expect(delivered.every((event: any) => BigInt(event.projectPosition) > BigInt(before.projectPosition))).toBe(true);
    // The run's events came to the enabled webhook only, signed with the restored secret.
    expect(delivered.map((event: any) => event.kind)).toContain('run.completed');
  }, 120_000);

  it('refuses a second restore of the same file: every shared key conflicts and both projects are blocked; nothing changes', async () => {
    const counts = await rowCounts(target.t);
    const preview = await (
      await target.t.request('POST', `${restoreRoute()}/preview`, { apiKey: target.apiKey, idempotencyKey: null, body: { backup } })
    ).json();
    expect(preview.ready).toBe(false);
    expect(preview.projects.map((project: any) => project.action)).toEqual(['blocked', 'blocked']);
    expect(preview.conflicts.map((conflict: any) => `${conflict.resource}:${conflict.key}`).sort()).toEqual(
      [
        'MCP credential:old-token',
        'MCP credential:tools-token',
        'MCP credential policy:tools-policy',
        'MCP server:tools',
        'model provider:openai',
        'sandbox provider:sandbox',
        'storage provider:archive',
      ].sort(),
    );
    const refused = await target.t.request('POST', restoreRoute(), { apiKey: target.apiKey, body: { backup, credentials: credentialsFor(backup) } });
    expect(refused.status).toBe(409);
    expect(await rowCounts(target.t)).toEqual(counts);
  });
});

describe('restore refusals', () => {
  let fresh: TestApp;
  let key: string;
  let org: string;
  beforeAll(async () => {
    fresh = await createTestApp({ env: { SVC_OUTBOUND_ALLOW_PRIVATE_NETWORK: 'true' } });
    key = (await fresh.createApiKey(['*'])).secret;
    org = (await (await fresh.request('GET', '/v1/context', { apiKey: key })).json()).organization.id;
  });
  afterAll(() => fresh?.close());
  const restore = (body: unknown, app = fresh, apiKey = key, organization = org) =>
    app.request('POST', `/v1/organizations/${organization}/configuration-restore`, { apiKey, body });
  const preview = async (file: unknown, app = fresh, apiKey = key, organization = org) =>
    (
      await app.request('POST', `/v1/organizations/${organization}/configuration-restore/preview`, { apiKey, idempotencyKey: null, body: { backup: file } })
    ).json();

  it('missing, unneeded or malformed credentials are 400 and nothing is created', async () => {
    const counts = await rowCounts(fresh);
    const complete = credentialsFor(backup);
    const missing = structuredClone(complete);
    delete (missing.mcpCredentials as Record<string, string>)[Object.keys(complete.mcpCredentials)[0]!];
    const unneeded = { ...complete, modelProviders: { ...complete.modelProviders, [backup.modelProviders[1].id]: 'sk-archived-needs-none-0001' } };
    const badWebhook = { ...complete, eventWebhooks: Object.fromEntries(Object.keys(complete.eventWebhooks).map((id) => [id, 'not-a-signing-secret'])) };
    for (const [name, credentials, pattern] of [
      ['missing', missing, /is missing/],
      ['unneeded (an archived provider)', unneeded, /is not needed/],
      ['malformed', badWebhook, /whsec_/],
    ] as const) {
      const response = await restore({ backup, credentials });
      const body = await response.json();
      expect(response.status, name).toBe(400);
      expect(body.error.message, name).toMatch(pattern);
      expect(body.error.details.path, name).toMatch(/^body\.credentials\./);
    }
    expect(await rowCounts(fresh)).toEqual(counts);
  });

  it('malformed files are 400 with the path, never 500', async () => {
    const edit = (change: (file: any) => void) => {
      const copy = structuredClone(backup);
      change(copy);
      return copy;
    };
    const cases: Array<[string, unknown, RegExp]> = [
      ['another format', edit((file) => (file.format = 'something.else')), /^body\.backup\.format$/],
      ['a newer format version', edit((file) => (file.formatVersion = 2)), /^body\.backup\.formatVersion$/],
      [
        'a dangling preset provider',
        edit((file) => (file.projects[0].modelPresets[0].providerId = 'modelProvider-99')),
        /^body\.backup\.projects\.0\.modelPresets\.0\.providerId$/,
      ],
      [
        'a dangling delegate',
        edit((file) => (file.projects[0].agents[1].versions[2].config.delegates[0].agentVersionId = 'agent-99.v1')),
        /config\.delegates\.0\.agentVersionId$/,
      ],
      ['a duplicated id', edit((file) => (file.projects[1].agents[0].id = file.projects[0].agents[0].id)), /^body\.backup\.projects\.1\.agents\.0\.id$/],
      [
        'a malformed entry',
        edit((file) => (file.projects[0].agents[0].versions[0].version = 'one')),
        /^body\.backup\.projects\.0\.agents\.0\.versions\.0\.version$/,
      ],
      ['a malformed agent config', edit((file) => (file.projects[0].agents[0].versions[0].config.limits = { maxTurns: 0 })), /config\.limits\.maxTurns$/],
      [
        'a schedule of a dangling agent',
        edit((file) => (file.projects[0].schedules[0].agentId = 'agent-99')),
        /^body\.backup\.projects\.0\.schedules\.0\.agentId$/,
      ],
      [
        "a schedule pinned to another agent's version",
        edit((file) => (file.projects[0].schedules[1].agentVersionId = file.projects[0].agents[1].versions[0].id)),
        /^body\.backup\.projects\.0\.schedules\.1\.agentVersionId$/,
      ],
      [
        'a schedule with a bad cron expression',
        edit((file) => (file.projects[0].schedules[0].cron = '0 25 * * *')),
        /^body\.backup\.projects\.0\.schedules\.0\.cron$/,
      ],
      ['a schedule with both timings', edit((file) => (file.projects[0].schedules[0].intervalSeconds = 60)), /^body\.backup\.projects\.0\.schedules\.0\.cron$/],
      [
        'a schedule attaching a dangling memory store',
        edit((file) => (file.projects[0].schedules[0].memoryStores[1].storeId = 'memoryStore-99')),
        /^body\.backup\.projects\.0\.schedules\.0\.memoryStores\.1\.storeId$/,
      ],
      [
        'a schedule attaching an agent as a memory store',
        edit((file) => (file.projects[0].schedules[0].memoryStores[0].storeId = file.projects[0].agents[0].id)),
        /^body\.backup\.projects\.0\.schedules\.0\.memoryStores\.0\.storeId$/,
      ],
      ['a negative price', edit((file) => (file.projects[0].modelPresets[0].prices.input = -1)), /^body\.backup\.projects\.0\.modelPresets\.0\.prices\.input$/],
      ['a zero budget', edit((file) => (file.projects[1].budget.maxMonthlyCost = 0)), /^body\.backup\.projects\.1\.budget\.maxMonthlyCost$/],
      ['not an object', 'backup', /^body\.backup$/],
    ];
    for (const [name, file, path] of cases) {
      const response = await restore({ backup: file, credentials: credentialsFor(backup) });
      const body = await response.json();
      expect(response.status, `${name}: ${JSON.stringify(body)}`).toBe(400);
      expect(body.error.details.path, name).toMatch(path);
    }
  });

  it('warns about a default storage provider, an unknown preset and a foreign snapshot', async () => {
    const file = structuredClone(backup);
    file.projects[1].agents[0].versions[0].config.modelPreset = 'nowhere';
    file.projects[0].agents[0].versions[0].config.sandbox = { ...file.projects[0].agents[0].versions[0].config.sandbox, snapshotId: randomUUID() };
    const other = await createTestApp({ env: { SVC_OUTBOUND_ALLOW_PRIVATE_NETWORK: 'true' } });
    try {
      const otherKey = (await other.createApiKey(['*'])).secret;
      const context = await (await other.request('GET', '/v1/context', { apiKey: otherKey })).json();
      const storage = await other.request('POST', `/v1/projects/${context.project.id}/storage-providers`, {
        apiKey: otherKey,
        body: {
          key: 'existing',
          displayName: 'Existing',
          providerType: 's3',
          region: 'eu-west-1',
          bucket: 'existing-bucket',
          setDefault: true,
          accessKeyId: 'AKIAEXISTING0001',
          secretAccessKey: 'existing-secret-0001',
        },
      });
      expect(storage.status).toBe(201);
      const plan = await preview(file, other, otherKey, context.organization.id);
      expect(plan.ready).toBe(true);
      expect(plan.warnings.map((warning: any) => warning.code).sort()).toEqual([
        'default_storage_provider_exists',
        'model_preset_unavailable',
        'sandbox_snapshot_unknown',
      ]);
    } finally {
      await other.close();
    }
  });

  it('a server that refuses private networks blocks the webhook, MCP, credential policy and storage endpoints of the file', async () => {
    const strict = await createTestApp();
    try {
      const strictKey = (await strict.createApiKey(['*'])).secret;
      const strictOrg = (await (await strict.request('GET', '/v1/context', { apiKey: strictKey })).json()).organization.id;
      const counts = await rowCounts(strict);
      const plan = await preview(backup, strict, strictKey, strictOrg);
      expect(plan.ready).toBe(false);
      // Storage endpoints and credential policy origins follow the same rule (issue 28).
      expect(plan.conflicts.map((conflict: any) => conflict.resource).sort()).toEqual([
        'MCP credential policy',
        'MCP credential policy',
        'MCP server',
        'event webhook',
        'event webhook',
      ]);
      const edited = structuredClone(backup);
      edited.storageProviders[0].endpoint = 'https://10.0.0.5:9000';
      const storagePlan = await preview(edited, strict, strictKey, strictOrg);
      expect(storagePlan.conflicts.find((conflict: any) => conflict.resource === 'storage provider')?.message).toMatch(
        /its endpoint must name a public host, not a private address/,
      );
      const refused = await restore({ backup, credentials: credentialsFor(backup) }, strict, strictKey, strictOrg);
      expect(refused.status).toBe(409);
      expect(await rowCounts(strict)).toEqual(counts);
    } finally {
      await strict.close();
    }
  });

  it('a sandbox allowlist that names the worker host itself blocks the restore, even where private networks are allowed (issue 28)', async () => {
    const lenient = await createTestApp({ env: { SVC_OUTBOUND_ALLOW_PRIVATE_NETWORK: 'true' } });
    try {
      const lenientKey = (await lenient.createApiKey(['*'])).secret;
      const lenientOrg = (await (await lenient.request('GET', '/v1/context', { apiKey: lenientKey })).json()).organization.id;
      const edited = structuredClone(backup);
      edited.sandboxProviders[0].restrictedEgress.allowedCidrs = ['10.0.0.0/8', '127.0.0.1/32'];
      const plan = await preview(edited, lenient, lenientKey, lenientOrg);
      expect(plan.ready).toBe(false);
      expect(plan.conflicts).toEqual([
        expect.objectContaining({ resource: 'sandbox provider', key: 'sandbox', message: expect.stringContaining('"127.0.0.1/32"') }),
      ]);
      // The file as it was (a public domain allowlist) is ready on the same server.
      expect((await preview(backup, lenient, lenientKey, lenientOrg)).ready).toBe(true);
    } finally {
      await lenient.close();
    }
  });

  it('a restore that fails at its last table leaves nothing behind', async () => {
    await fresh.database.db.execute(
      sql.raw(`
      create function refuse_restored_webhook() returns trigger language plpgsql as $$ begin raise exception 'injected failure'; end $$;
      create trigger refuse_restored_webhook before insert on event_webhooks for each row execute function refuse_restored_webhook();`),
    );
    const counts = await rowCounts(fresh);
    const response = await restore({ backup, credentials: credentialsFor(backup) });
    const body = await response.json();
    expect(response.status).toBe(409);
    expect(body.error.message).toBe('Restoring the event webhooks failed; nothing was restored');
    expect(await rowCounts(fresh)).toEqual(counts);
    await fresh.database.db.execute(sql.raw('drop trigger refuse_restored_webhook on event_webhooks; drop function refuse_restored_webhook();'));
    expect((await restore({ backup, credentials: credentialsFor(backup) })).status).toBe(201);
  });

  it('needs an organization owner or admin, or a key with * or project:admin', async () => {
    const reader = (await fresh.createApiKey(['agent:read'])).secret;
    const admin = (await fresh.createApiKey(['project:admin'])).secret;
    const route = `/v1/organizations/${org}/configuration-backup`;
    expect((await fresh.request('GET', route, { apiKey: reader })).status).toBe(403);
    expect((await fresh.request('GET', route, { apiKey: admin })).status).toBe(200);
    expect((await fresh.request('GET', `/v1/organizations/${randomUUID()}/configuration-backup`, { apiKey: admin })).status).toBe(403);
    const { cookie, context } = await fresh.login();
    const member = await fresh.request('POST', `/v1/projects/${context.project.id}/members`, { cookie, body: { subject: 'member-sub', role: 'member' } });
    expect(member.status).toBe(201);
    expect((await preview(backup, fresh, reader)).error.code).toBe('forbidden');
    // A person with the member role (signed in with a cookie session) is refused too.
    const session = await createBrowserSession({
      ctx: systemContext({ db: fresh.database.db, logger: fresh.deps.logger }),
      input: { organizationId: org, subject: 'member-sub', projectId: context.project.id },
    });
    const asMember = await fresh.request('GET', route, { cookie: `svc_session=${session.token}` });
    expect(asMember.status).toBe(403);
    expect((await asMember.json()).error.message).toMatch(/owner or admin|scope/);
  });
});
