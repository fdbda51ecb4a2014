import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEntries, idempotencyRecords, modelPresets, modelProviders, organizations } from '../../db/schema/index.ts';
import { createProvider, errorOf } from '../fixtures/model-vendors/helpers.ts';
import { FAKE_KEYS, startFakeModelProviders, type FakeModelProviders } from '../fixtures/model-vendors/catalog-server.ts';
import { createTestApp, type TestApp } from '../support/app.ts';

let t: TestApp;
let fakes: FakeModelProviders;
let projectId: string;
let admin: string;
let reader: string;
let responseTexts: string[] = [];
const ROTATED_KEY = 'sk-proj-rotated-vendor-a-key-0002';
const secrets = [...Object.values(FAKE_KEYS), ROTATED_KEY];

beforeAll(async () => {
  fakes = await startFakeModelProviders();
  fakes.validKeys.vendor_a.add(ROTATED_KEY);
  t = await createTestApp({ env: fakes.env });
  projectId = (await t.login()).context.project.id;
  admin = (await t.createApiKey(['*'])).secret;
  reader = (await t.createApiKey(['agent:read'])).secret;
  // Record every response body so the last test can prove no secret ever appeared.
  responseTexts = t.recordResponseTexts();
});
afterAll(async () => {
  await t.close();
  await fakes.close();
});

const base = () => `/v1/projects/${projectId}/model-providers`;

describe('model provider connections', () => {
  it('creates a connection and shows only safe metadata', async () => {
    const created = await createProvider(t, { apiKey: admin, projectId, key: 'openai', providerType: 'vendor_a' });
    expect(Object.keys(created).sort()).toEqual(
      [
        'createdAt',
        'credentialConfigured',
        'credentialFingerprint',
        'credentialVersion',
        'displayName',
        'id',
        'key',
        'organizationId',
        'providerType',
        'updatedAt',
      ].sort(),
    );
    expect(created).toMatchObject({ key: 'openai', providerType: 'vendor_a', credentialConfigured: true, credentialVersion: 1 });
    expect(created.credentialFingerprint).toMatch(/^[0-9a-f]{12}$/);
    const [row] = await t.database.db.select().from(modelProviders).where(eq(modelProviders.id, created.id));
    expect(row!.credentialCiphertext).toMatch(/^v1\./);
    expect(t.deps.keyring.decrypt(row!.credentialCiphertext!, `model_provider:${created.id}`)).toBe(FAKE_KEYS.vendor_a);
    const list = await (await t.request('GET', base(), { apiKey: reader })).json();
    expect(list.data.map((p: { key: string }) => p.key)).toEqual(['openai']);
    expect(list.pageInfo).toEqual({ nextCursor: null });
  });

  it('refuses a live duplicate key with 409 and malformed bodies with 400 and details.path', async () => {
    const duplicate = await t.request('POST', base(), {
      apiKey: admin,
      body: { key: 'openai', displayName: 'Again', providerType: 'vendor_a', apiKey: 'sk-x' },
    });
    expect(duplicate.status).toBe(409);
    expect((await errorOf(duplicate)).code).toBe('conflict');
    for (const [body, path] of [
      [{ key: 'Bad Key', displayName: 'x', providerType: 'vendor_a', apiKey: 'sk-x' }, 'body.key'],
      [{ key: 'ok', displayName: 'x', providerType: 'vendor_z', apiKey: 'sk-x' }, 'body.providerType'],
      [{ key: 'ok', displayName: 'x', providerType: 'vendor_a', apiKey: 'sk secret with spaces' }, 'body.apiKey'],
      [{ key: 'ok', displayName: 'x', providerType: 'vendor_a' }, 'body.apiKey'],
      [{ key: 'ok', displayName: 'x', providerType: 'vendor_a', apiKey: 'sk-x', extra: 1 }, 'body.extra'],
    ] as const) {
      const response = await t.request('POST', base(), { apiKey: admin, body });
      expect(response.status).toBe(400);
      const error = await errorOf(response);
      expect(error.code).toBe('bad_request');
      expect(error.details.path).toBe(path);
      expect(JSON.stringify(error)).not.toContain('secret with spaces');
    }
  });

  it('writes need project:admin (403 naming it); reads need agent:read', async () => {
    const created = await t.request('POST', base(), { apiKey: reader, body: { key: 'nope', displayName: 'x', providerType: 'vendor_a', apiKey: 'sk-x' } });
    expect(created.status).toBe(403);
    expect((await errorOf(created)).message).toContain('project:admin');
    const [provider] = (await (await t.request('GET', base(), { apiKey: reader })).json()).data;
    for (const [method, path, body] of [
      ['PUT', `${base()}/${provider.id}/credential`, { apiKey: 'sk-y' }],
      ['DELETE', `${base()}/${provider.id}`, undefined],
    ] as const) {
      const response = await t.request(method, path, { apiKey: reader, body });
      expect(response.status).toBe(403);
      expect((await errorOf(response)).message).toContain('project:admin');
    }
    const noRead = (await t.createApiKey(['run:read'])).secret;
    const list = await t.request('GET', base(), { apiKey: noRead });
    expect(list.status).toBe(403);
    expect((await errorOf(list)).message).toContain('agent:read');
    expect((await t.request('GET', base())).status).toBe(401);
  });

  it('needs an Idempotency-Key and replays the stored response', async () => {
    const body = { key: 'claude', displayName: 'Claude', providerType: 'vendor_b', apiKey: FAKE_KEYS.vendor_b };
    const missing = await t.request('POST', base(), { apiKey: admin, body, idempotencyKey: null });
    expect(missing.status).toBe(400);
    const first = await t.request('POST', base(), { apiKey: admin, body, idempotencyKey: 'provider-claude' });
    expect(first.status).toBe(201);
    const replay = await t.request('POST', base(), { apiKey: admin, body, idempotencyKey: 'provider-claude' });
    expect(replay.headers.get('idempotency-replayed')).toBe('true');
    expect((await replay.json()).id).toBe((await first.json()).id);
    const conflict = await t.request('POST', base(), { apiKey: admin, body: { ...body, displayName: 'Other' }, idempotencyKey: 'provider-claude' });
    expect(conflict.status).toBe(409);
    expect((await errorOf(conflict)).code).toBe('idempotency_conflict');
  });

  it('rotation increments the version and changes the fingerprint', async () => {
    const [provider] = (await (await t.request('GET', base(), { apiKey: admin })).json()).data;
    const response = await t.request('PUT', `${base()}/${provider.id}/credential`, { apiKey: admin, body: { apiKey: ROTATED_KEY } });
    expect(response.status).toBe(200);
    const rotated = await response.json();
    expect(rotated.credentialVersion).toBe(provider.credentialVersion + 1);
    expect(rotated.credentialFingerprint).toMatch(/^[0-9a-f]{12}$/);
    expect(rotated.credentialFingerprint).not.toBe(provider.credentialFingerprint);
    const catalog = await t.request('GET', `/v1/projects/${projectId}/model-catalog?providerId=${provider.id}`, { apiKey: reader });
    expect(catalog.status).toBe(200);
    expect(fakes.requests.at(-1)!.headers.authorization).toBe(`Bearer ${ROTATED_KEY}`);
    const audit = await t.database.db.select().from(auditEntries).where(eq(auditEntries.action, 'model_provider.credential_rotated'));
    expect(audit[0]!.details).toMatchObject({ key: 'openai', credentialVersion: 2 });
    expect((await t.request('PUT', `${base()}/${randomUUID()}/credential`, { apiKey: admin, body: { apiKey: 'sk-x' } })).status).toBe(404);
    expect((await t.request('PUT', `${base()}/not-a-uuid/credential`, { apiKey: admin, body: { apiKey: 'sk-x' } })).status).toBe(400);
  });

  it("another organization's connection is a 404 everywhere", async () => {
    const [other] = await t.database.db
      .insert(organizations)
      .values({ slug: `other-${randomUUID().slice(0, 8)}`, name: 'Other' })
      .returning();
    const [foreign] = await t.database.db
      .insert(modelProviders)
      .values({ organizationId: other!.id, key: 'foreign', displayName: 'Foreign', providerType: 'vendor_a', credentialVersion: 0 })
      .returning();
    expect((await t.request('PUT', `${base()}/${foreign!.id}/credential`, { apiKey: admin, body: { apiKey: 'sk-x' } })).status).toBe(404);
    expect((await t.request('DELETE', `${base()}/${foreign!.id}`, { apiKey: admin })).status).toBe(404);
    expect((await t.request('GET', `/v1/projects/${projectId}/model-catalog?providerId=${foreign!.id}`, { apiKey: admin })).status).toBe(404);
    const preset = await t.request('POST', `/v1/projects/${projectId}/model-presets`, {
      apiKey: admin,
      body: { key: 'foreign', displayName: 'F', providerId: foreign!.id, model: 'vendor_a/gpt-5.1', routing: {} },
    });
    expect(preset.status).toBe(404);
    const list = await (await t.request('GET', base(), { apiKey: admin })).json();
    expect(list.data.map((p: { key: string }) => p.key)).not.toContain('foreign');
  });

  it('removal is refused while a live preset of any project routes through it, then frees the key', async () => {
    const provider = await createProvider(t, { apiKey: admin, projectId, key: 'removable', providerType: 'vendor_a' });
    const otherProject = await (await t.request('POST', '/v1/projects', { apiKey: admin, body: { slug: 'second', name: 'Second' } })).json();
    const preset = await t.request('POST', `/v1/projects/${otherProject.id}/model-presets`, {
      apiKey: admin,
      body: { key: 'fast', displayName: 'Fast', providerId: provider.id, model: 'vendor_a/gpt-5.1' },
    });
    expect(preset.status, await preset.clone().text()).toBe(201);
    const refused = await t.request('DELETE', `${base()}/${provider.id}`, { apiKey: admin });
    expect(refused.status).toBe(409);
    expect(await errorOf(refused)).toMatchObject({ code: 'conflict', details: { presets: [{ key: 'fast', projectId: otherProject.id }] } });

    const archived = await t.request('DELETE', `/v1/projects/${otherProject.id}/model-presets/${(await preset.json()).id}`, { apiKey: admin });
    expect(archived.status).toBe(200);
    const removed = await t.request('DELETE', `${base()}/${provider.id}`, { apiKey: admin });
    expect(removed.status).toBe(200);
    expect(await removed.json()).toEqual({ id: provider.id, removed: true });

    const [row] = await t.database.db.select().from(modelProviders).where(eq(modelProviders.id, provider.id));
    expect(row).toMatchObject({ credentialCiphertext: null, credentialFingerprint: null });
    expect(row!.removedAt).not.toBeNull();
    const audit = await t.database.db.select().from(auditEntries).where(eq(auditEntries.targetId, provider.id));
    expect(audit.find((entry) => entry.action === 'model_provider.removed')!.details).toEqual({ key: 'removable', providerType: 'vendor_a' });

    const list = await (await t.request('GET', base(), { apiKey: admin })).json();
    expect(list.data.map((p: { id: string }) => p.id)).not.toContain(provider.id);
    expect((await t.request('PUT', `${base()}/${provider.id}/credential`, { apiKey: admin, body: { apiKey: 'sk-x' } })).status).toBe(404);
    expect((await t.request('DELETE', `${base()}/${provider.id}`, { apiKey: admin })).status).toBe(404);
    expect((await t.request('GET', `/v1/projects/${projectId}/model-catalog?providerId=${provider.id}`, { apiKey: admin })).status).toBe(404);
    const newPreset = await t.request('POST', `/v1/projects/${projectId}/model-presets`, {
      apiKey: admin,
      body: { key: 'after-removal', displayName: 'x', providerId: provider.id, model: 'vendor_a/gpt-5.1' },
    });
    expect(newPreset.status).toBe(404);
    const [archivedRow] = await t.database.db.select().from(modelPresets).where(eq(modelPresets.providerId, provider.id));
    expect(archivedRow!.archivedAt).not.toBeNull();

    const reused = await createProvider(t, { apiKey: admin, projectId, key: 'removable', providerType: 'vendor_c' });
    expect(reused.id).not.toBe(provider.id);
  });

  it('never shows, logs or audits an API key', async () => {
    const audit = JSON.stringify(await t.database.db.select().from(auditEntries));
    const stored = JSON.stringify(await t.database.db.select().from(idempotencyRecords));
    const logs = t.logLines.join('\n');
    for (const secret of secrets) {
      for (const text of responseTexts) expect(text).not.toContain(secret);
      expect(audit).not.toContain(secret);
      expect(stored).not.toContain(secret);
      expect(logs).not.toContain(secret);
    }
    expect(responseTexts.length).toBeGreaterThan(20);
  });
});
