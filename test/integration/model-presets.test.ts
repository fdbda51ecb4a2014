import { writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEntries, modelPresets } from '../../db/schema/index.ts';
import { DeploymentPresetsError, deploymentPresetId, loadDeploymentPresets } from '../../services/configuration/model-presets/index.ts';
import { createProvider, errorOf } from '../fixtures/model-vendors/helpers.ts';
import { startFakeModelProviders, type FakeModelProviders } from '../fixtures/model-vendors/catalog-server.ts';
import { createTestApp, type TestApp } from '../support/app.ts';

let t: TestApp;
let fakes: FakeModelProviders;
let projectId: string;
let admin: string;
let reader: string;
let cookie: string;
const providers: Record<string, { id: string }> = {};

function presetsFile(content: unknown): string {
  const file = path.join(os.tmpdir(), `svc-presets-${randomUUID()}.json`);
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

beforeAll(async () => {
  fakes = await startFakeModelProviders();
  const file = presetsFile([
    { key: 'house-default', displayName: 'House default', providerKey: 'openai', model: 'vendor_a/gpt-5.1', settings: { effort: 'low' } },
    { key: 'house-claude', displayName: 'House Claude', providerKey: 'claude-missing', model: 'vendor_b/claude-opus-4-6' },
  ]);
  t = await createTestApp({ env: { ...fakes.env, SVC_DEPLOYMENT_PRESETS_FILE: file } });
  const login = await t.login();
  cookie = login.cookie;
  projectId = login.context.project.id;
  admin = (await t.createApiKey(['*'])).secret;
  reader = (await t.createApiKey(['agent:read'])).secret;
  providers.vendor_a = await createProvider(t, { apiKey: admin, projectId, key: 'openai', providerType: 'vendor_a' });
  providers.vendor_b = await createProvider(t, { apiKey: admin, projectId, key: 'anthropic', providerType: 'vendor_b' });
  providers.vendor_c = await createProvider(t, { apiKey: admin, projectId, key: 'gemini', providerType: 'vendor_c' });
  providers.gateway = await createProvider(t, { apiKey: admin, projectId, key: 'openrouter', providerType: 'gateway' });
});
afterAll(async () => {
  await t.close();
  await fakes.close();
});

const base = () => `/v1/projects/${projectId}/model-presets`;
let counter = 0;
const create = (type: keyof typeof providers, body: Record<string, unknown>, apiKey = admin) =>
  t.request('POST', base(), { apiKey, body: { key: `p-${++counter}`, displayName: 'Preset', providerId: providers[type]!.id, ...body } });

async function expect400(response: Awaited<ReturnType<typeof create>>, pathOrMessage: string) {
  expect(response.status, await response.clone().text()).toBe(400);
  const error = await errorOf(response);
  expect(error.code).toBe('bad_request');
  if (pathOrMessage.startsWith('body.')) expect(error.details.path).toBe(pathOrMessage);
  else expect(error.message).toContain(pathOrMessage);
}

describe('creating presets', () => {
  it('stores the defaults when settings are omitted and returns the preset', async () => {
    const response = await create('vendor_a', { key: 'fast', model: 'vendor_a/gpt-5.1' });
    expect(response.status).toBe(201);
    const preset = await response.json();
    expect(preset).toMatchObject({
      key: 'fast',
      origin: 'project',
      projectId,
      providerId: providers.vendor_a!.id,
      providerKey: 'openai',
      providerType: 'vendor_a',
      model: 'vendor_a/gpt-5.1',
      routing: {},
      settings: { textFormat: 'text', mode: 'standard', effort: 'medium', verbosity: 'medium', summary: 'auto' },
      available: true,
    });
    const [row] = await t.database.db.select().from(modelPresets).where(eq(modelPresets.id, preset.id));
    expect(row!.settings).toEqual(preset.settings);
    for (const [type, model, defaults] of [
      ['vendor_b', 'vendor_b/claude-opus-4-6', { thinking: 'adaptive', maxTokens: 20000, effort: 'high' }],
      ['vendor_c', 'vendor_c/gemini-2.5-pro', { textFormat: 'text', effort: 'high' }],
    ] as const) {
      const created = await create(type, { model, routing: {} });
      expect(created.status, await created.clone().text()).toBe(201);
      expect((await created.json()).settings).toEqual(defaults);
    }
  });

  it('accepts every listed settings value where the model supports it', async () => {
    for (const settings of [
      { textFormat: 'text', mode: 'pro', effort: 'none', verbosity: 'low', summary: 'concise' },
      { mode: 'standard', effort: 'high', verbosity: 'high', summary: 'detailed' },
      { effort: 'low', verbosity: 'medium', summary: 'auto' },
    ]) {
      const response = await create('vendor_a', { model: 'vendor_a/gpt-5.1', settings });
      expect(response.status, await response.clone().text()).toBe(201);
    }
    for (const settings of [
      { thinking: 'disabled', maxTokens: 1, effort: 'low' },
      { thinking: 'adaptive', maxTokens: 128000, effort: 'max' },
      { effort: 'medium' },
    ]) {
      expect((await create('vendor_b', { model: 'vendor_b/claude-opus-4-6', settings })).status).toBe(201);
    }
    expect((await create('vendor_b', { model: 'vendor_b/claude-mythos-5', settings: { effort: 'xhigh' } })).status).toBe(201);
    for (const effort of ['low', 'high'])
      expect((await create('vendor_c', { model: 'vendor_c/gemini-3-pro-preview', settings: { textFormat: 'text', effort } })).status).toBe(201);
  });

  it('refuses invalid settings with details.path', async () => {
    await expect400(await create('vendor_a', { model: 'vendor_a/gpt-5.1', settings: { effort: 'minimal' } }), 'body.settings.effort');
    await expect400(await create('vendor_a', { model: 'vendor_a/gpt-5.1', settings: { mode: 'turbo' } }), 'body.settings.mode');
    await expect400(await create('vendor_a', { model: 'vendor_a/gpt-5.1', settings: { temperature: 1 } }), 'body.settings.temperature');
    await expect400(await create('vendor_b', { model: 'vendor_b/claude-opus-4-6', settings: { thinking: 'enabled' } }), 'body.settings.thinking');
    await expect400(await create('vendor_b', { model: 'vendor_b/claude-opus-4-6', settings: { maxTokens: 300001 } }), 'body.settings.maxTokens');
    await expect400(await create('vendor_b', { model: 'vendor_b/claude-opus-4-6', settings: { budgetTokens: 2048 } }), 'body.settings.budgetTokens');
    await expect400(await create('vendor_c', { model: 'vendor_c/gemini-2.5-pro', settings: { effort: 'none' } }), 'body.settings.effort');
    await expect400(await create('vendor_a', { model: 'vendor_a/gpt-5.1', routing: { sort: 'price' } }), 'body.routing.sort');
    await expect400(await create('vendor_a', { model: 'vendor_a/gpt-5.1', settings: 'fast' }), 'body.settings');
  });

  it('checks the model against the catalog, fetched afresh', async () => {
    const before = fakes.requests.length;
    await expect400(await create('vendor_a', { model: 'vendor_a/gpt-9' }), 'not in the provider');
    expect(fakes.requests.length).toBeGreaterThan(before);
    await expect400(await create('vendor_a', { model: 'gpt-5.1' }), 'body.model');
    await expect400(await create('vendor_a', { model: 'vendor_b/claude-opus-4-6' }), 'body.model');
    await expect400(await create('vendor_a', { model: 'vendor_a/text-embedding-3-large' }), 'runtimeSupported is false');
    await expect400(await create('vendor_b', { model: 'vendor_b/claude-3-haiku-20240307' }), 'runtimeSupported is false');
    await expect400(await create('vendor_c', { model: 'vendor_c/gemini-2.0-flash' }), 'runtimeSupported is false');
    await expect400(await create('gateway', { model: 'gateway/google/gemini-2.5-flash-image' }), 'runtimeSupported is false');
  });

  it('refuses settings the model does not support', async () => {
    // gpt-5-mini cannot disable thinking (spec 2 rule 3).
    await expect400(await create('vendor_a', { model: 'vendor_a/gpt-5-mini', settings: { effort: 'none' } }), 'effort none');
    await expect400(await create('vendor_b', { model: 'vendor_b/claude-sonnet-4-6', settings: { maxTokens: 64001 } }), 'body.settings.maxTokens');
    expect((await create('vendor_b', { model: 'vendor_b/claude-sonnet-4-6', settings: { maxTokens: 64000 } })).status).toBe(201);
    await expect400(await create('vendor_b', { model: 'vendor_b/claude-mythos-5', settings: { thinking: 'disabled' } }), 'body.settings.thinking');
    await expect400(await create('vendor_b', { model: 'vendor_b/claude-opus-4-6', settings: { effort: 'xhigh' } }), 'body.settings.effort');
    await expect400(await create('vendor_c', { model: 'vendor_c/gemini-3-pro-preview', settings: { effort: 'medium' } }), 'body.settings.effort');
  });

  it('gateway presets take a validated routing policy and refuse settings', async () => {
    const routing = {
      allowFallbacks: true,
      requireParameters: true,
      dataCollection: 'deny',
      zeroDataRetention: true,
      providerOrder: ['anthropic', 'google-vertex'],
      providerAllowlist: ['anthropic'],
      providerDenylist: ['together'],
      sort: 'latency',
      maxPromptPriceUsdPerMillion: 3,
      maxCompletionPriceUsdPerMillion: 15,
    };
    const response = await create('gateway', { model: 'gateway/anthropic/claude-sonnet-4.5', routing });
    expect(response.status, await response.clone().text()).toBe(201);
    expect(await response.json()).toMatchObject({ routing, settings: null, providerType: 'gateway' });
    expect((await create('gateway', { model: 'gateway/openai/gpt-4o' })).status).toBe(201);
    await expect400(await create('gateway', { model: 'gateway/openai/gpt-4o', settings: {} }), 'body.settings');
    await expect400(await create('gateway', { model: 'gateway/openai/gpt-4o', routing: { dataCollection: 'sometimes' } }), 'body.routing.dataCollection');
    await expect400(await create('gateway', { model: 'gateway/openai/gpt-4o', routing: { providerOrder: [] } }), 'body.routing.providerOrder');
    await expect400(await create('gateway', { model: 'gateway/openai/gpt-4o', routing: { providerOrder: ['a', 'a'] } }), 'body.routing.providerOrder');
    await expect400(await create('gateway', { model: 'gateway/openai/gpt-4o', routing: { sort: 'cheapest' } }), 'body.routing.sort');
    await expect400(
      await create('gateway', { model: 'gateway/openai/gpt-4o', routing: { maxPromptPriceUsdPerMillion: 1_000_001 } }),
      'body.routing.maxPromptPriceUsdPerMillion',
    );
    await expect400(await create('gateway', { model: 'gateway/openai/gpt-4o', routing: { allowFallbacks: 'true' } }), 'body.routing.allowFallbacks');
  });

  it('accepts saved gateway presets gateway/@preset/<slug> without a catalog lookup', async () => {
    const before = fakes.requests.length;
    const response = await create('gateway', { model: 'gateway/@preset/team-default', routing: { sort: 'price' } });
    expect(response.status, await response.clone().text()).toBe(201);
    expect(fakes.requests.length).toBe(before);
    await expect400(await create('gateway', { model: 'gateway/@preset/Not A Slug' }), 'body.model');
  });

  it('scopes, idempotency and unknown providers', async () => {
    const forbidden = await create('vendor_a', { model: 'vendor_a/gpt-5.1' }, reader);
    expect(forbidden.status).toBe(403);
    expect((await errorOf(forbidden)).message).toContain('project:admin');
    const body = { key: 'replayed', displayName: 'R', providerId: providers.vendor_a!.id, model: 'vendor_a/gpt-5.1' };
    expect((await t.request('POST', base(), { apiKey: admin, body, idempotencyKey: null })).status).toBe(400);
    const first = await t.request('POST', base(), { apiKey: admin, body, idempotencyKey: 'preset-replay' });
    const replay = await t.request('POST', base(), { apiKey: admin, body, idempotencyKey: 'preset-replay' });
    expect(replay.headers.get('idempotency-replayed')).toBe('true');
    expect((await replay.json()).id).toBe((await first.json()).id);
    const missing = await t.request('POST', base(), { apiKey: admin, body: { ...body, key: 'ghost', providerId: randomUUID() } });
    expect(missing.status).toBe(404);
    expect((await errorOf(missing)).code).toBe('not_found');
  });
});

describe('listing, archiving and deployment presets', () => {
  it('lists deployment presets, project presets and unavailable ones, by key, paged', async () => {
    const list = await (await t.request('GET', `${base()}?limit=200`, { apiKey: reader })).json();
    const byKey = Object.fromEntries(list.data.map((preset: { key: string }) => [preset.key, preset]));
    expect(byKey['house-default']).toMatchObject({
      id: deploymentPresetId('house-default'),
      origin: 'deployment',
      projectId: null,
      providerId: providers.vendor_a!.id,
      providerKey: 'openai',
      model: 'vendor_a/gpt-5.1',
      settings: { effort: 'low', mode: 'standard' },
      available: true,
      createdAt: null,
    });
    expect(byKey['house-claude']).toMatchObject({ origin: 'deployment', providerId: null, available: false });
    expect(byKey.fast).toMatchObject({ origin: 'project', available: true });
    const keys = list.data.map((preset: { key: string }) => preset.key);
    expect(keys).toEqual([...keys].sort());
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await (await t.request('GET', `${base()}?limit=3${cursor ? `&cursor=${cursor}` : ''}`, { apiKey: reader })).json();
      expect(page.data.length).toBeLessThanOrEqual(3);
      seen.push(...page.data.map((preset: { key: string }) => preset.key));
      cursor = page.pageInfo.nextCursor;
    } while (cursor);
    expect(seen).toEqual(keys);
    expect((await t.request('GET', `${base()}?cursor=bogus`, { apiKey: reader })).status).toBe(400);
  });

  it('activeModelPresets in /context holds every usable preset key', async () => {
    const context = await (await t.request('GET', '/v1/context', { cookie })).json();
    expect(context.activeModelPresets).toContain('house-default');
    expect(context.activeModelPresets).toContain('fast');
    expect(context.activeModelPresets).not.toContain('house-claude');
    expect(context.activeModelPresets).toEqual([...context.activeModelPresets].sort());
  });

  it('archives a project preset: leaves the list, key stays reserved, audit written', async () => {
    const created = await (await create('vendor_a', { key: 'to-archive', model: 'vendor_a/gpt-5.1' })).json();
    expect((await t.request('DELETE', `${base()}/${created.id}`, { apiKey: reader })).status).toBe(403);
    const response = await t.request('DELETE', `${base()}/${created.id}`, { apiKey: admin });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ id: created.id, key: 'to-archive', archived: true });
    const list = await (await t.request('GET', `${base()}?limit=200`, { apiKey: reader })).json();
    expect(list.data.map((preset: { key: string }) => preset.key)).not.toContain('to-archive');
    const context = await (await t.request('GET', '/v1/context', { cookie })).json();
    expect(context.activeModelPresets).not.toContain('to-archive');
    const reuse = await create('vendor_a', { key: 'to-archive', model: 'vendor_a/gpt-5.1' });
    expect(reuse.status).toBe(409);
    expect((await errorOf(reuse)).code).toBe('conflict');
    expect((await t.request('DELETE', `${base()}/${created.id}`, { apiKey: admin })).status).toBe(404);
    const [audit] = await t.database.db
      .select()
      .from(auditEntries)
      .where(and(eq(auditEntries.action, 'model_preset.archived'), eq(auditEntries.targetId, created.id)));
    expect(audit!.details).toEqual({ key: 'to-archive' });
  });

  it('deployment presets cannot be archived and their keys cannot be reused', async () => {
    const response = await t.request('DELETE', `${base()}/${deploymentPresetId('house-default')}`, { apiKey: admin });
    expect(response.status).toBe(409);
    expect((await errorOf(response)).message).toContain('deployment preset');
    const reuse = await create('vendor_a', { key: 'house-default', model: 'vendor_a/gpt-5.1' });
    expect(reuse.status).toBe(409);
  });

  it('a duplicate project key is a 409', async () => {
    expect((await create('vendor_a', { key: 'fast', model: 'vendor_a/gpt-5.1' })).status).toBe(409);
  });
});

describe('SVC_DEPLOYMENT_PRESETS_FILE', () => {
  it('a bad file stops start-up with a message naming the file and the entry', () => {
    expect(loadDeploymentPresets(undefined)).toEqual([]);
    const bad = presetsFile([{ key: 'x', displayName: 'X', providerKey: 'p', model: 'vendor_c/gemini-2.5-pro', settings: { effort: 'none' } }]);
    expect(() => loadDeploymentPresets(bad)).toThrow(DeploymentPresetsError);
    expect(() => loadDeploymentPresets(bad)).toThrow(/presets\[0\]\.settings\.effort/);
    expect(() => loadDeploymentPresets(presetsFile('{not json'))).toThrow(/not valid JSON/);
    expect(() => loadDeploymentPresets('/nonexistent/presets.json')).toThrow(/cannot be read/);
  });
});
