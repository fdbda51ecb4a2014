import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProvider, errorOf } from '../fixtures/model-vendors/helpers.ts';
import { closedPortUrl, FAKE_KEYS, startFakeModelProviders, type FakeModelProviders } from '../fixtures/model-vendors/catalog-server.ts';
import { createTestApp, type TestApp } from '../support/app.ts';

let t: TestApp;
let fakes: FakeModelProviders;
let projectId: string;
let admin: string;
let reader: string;
const providers: Record<string, { id: string }> = {};

beforeAll(async () => {
  fakes = await startFakeModelProviders();
  t = await createTestApp({ env: fakes.env });
  projectId = (await t.login()).context.project.id;
  admin = (await t.createApiKey(['*'])).secret;
  reader = (await t.createApiKey(['agent:read'])).secret;
  for (const type of ['gateway', 'vendor_a', 'vendor_b', 'vendor_c'] as const) {
    providers[type] = await createProvider(t, { apiKey: admin, projectId, key: type.replace('_', '-'), providerType: type });
  }
});
afterAll(async () => {
  await t.close();
  await fakes.close();
});

const catalog = (query: string, apiKey = reader) => t.request('GET', `/v1/projects/${projectId}/model-catalog?${query}`, { apiKey });

describe('model catalog', () => {
  it('vendor_a: OpenAI /models with a Bearer key, non-chat models flagged', async () => {
    const response = await catalog(`providerId=${providers.vendor_a!.id}&limit=200`);
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body).toMatchObject({ providerId: providers.vendor_a!.id, providerType: 'vendor_a', total: 8 });
    const byId = Object.fromEntries(body.data.map((entry: { catalogId: string }) => [entry.catalogId, entry]));
    expect(byId['gpt-5.1']).toEqual({
      providerType: 'vendor_a',
      model: 'vendor_a/gpt-5.1',
      catalogId: 'gpt-5.1',
      displayName: 'gpt-5.1',
      contextWindow: 400000,
      outputLimit: 128000,
      reasoning: true,
      adaptiveThinking: null,
      thinkingCanBeDisabled: true,
      effortLevels: ['none', 'low', 'medium', 'high'],
      runtimeSupported: true,
    });
    for (const id of ['text-embedding-3-large', 'whisper-1', 'dall-e-3', 'omni-moderation-latest']) expect(byId[id].runtimeSupported).toBe(false);
    const request = fakes.requests.findLast((entry) => entry.providerType === 'vendor_a')!;
    expect(request).toMatchObject({ method: 'GET', path: '/v1/models' });
    expect(request.headers.authorization).toBe(`Bearer ${FAKE_KEYS.vendor_a}`);
  });

  it('vendor_b: Anthropic /v1/models with x-api-key and anthropic-version, following after_id', async () => {
    const before = fakes.requests.length;
    const body = await (await catalog(`providerId=${providers.vendor_b!.id}`)).json();
    expect(body.data.map((entry: { catalogId: string }) => entry.catalogId)).toEqual([
      'claude-opus-4-6',
      'claude-mythos-5',
      'claude-sonnet-4-6',
      'claude-3-haiku-20240307',
    ]);
    expect(body.data[0]).toEqual({
      providerType: 'vendor_b',
      model: 'vendor_b/claude-opus-4-6',
      catalogId: 'claude-opus-4-6',
      displayName: 'Claude Opus 4.6',
      contextWindow: 200000,
      outputLimit: 128000,
      reasoning: true,
      adaptiveThinking: true,
      thinkingCanBeDisabled: true,
      effortLevels: ['low', 'medium', 'high', 'max'],
      runtimeSupported: true,
    });
    expect(body.data[1]).toMatchObject({ catalogId: 'claude-mythos-5', thinkingCanBeDisabled: false });
    expect(body.data[3]).toMatchObject({ catalogId: 'claude-3-haiku-20240307', effortLevels: [], runtimeSupported: false });
    const requests = fakes.requests.slice(before);
    expect(requests.map((request) => request.query.after_id ?? null)).toEqual([null, 'claude-mythos-5']);
    for (const request of requests) expect(request.headers).toMatchObject({ 'x-api-key': FAKE_KEYS.vendor_b, 'anthropic-version': '2023-06-01' });
  });

  it('vendor_c: Gemini /models with x-goog-api-key, following nextPageToken', async () => {
    const before = fakes.requests.length;
    const body = await (await catalog(`providerId=${providers.vendor_c!.id}`)).json();
    expect(body.data.map((entry: { model: string; runtimeSupported: boolean }) => [entry.model, entry.runtimeSupported])).toEqual([
      ['vendor_c/gemini-2.5-pro', true],
      ['vendor_c/gemini-3-pro-preview', true],
      ['vendor_c/gemini-2.0-flash', false],
      ['vendor_c/gemini-embedding-001', false],
      ['vendor_c/imagen-4.0-generate-001', false],
    ]);
    expect(body.data[0]).toMatchObject({
      displayName: 'Gemini 2.5 Pro',
      contextWindow: 1048576,
      outputLimit: 65536,
      reasoning: true,
      effortLevels: ['low', 'medium', 'high'],
      thinkingCanBeDisabled: false,
    });
    const requests = fakes.requests.slice(before);
    expect(requests).toHaveLength(3);
    for (const request of requests) {
      expect(request.headers['x-goog-api-key']).toBe(FAKE_KEYS.vendor_c);
      expect(request.query.key).toBeUndefined();
    }
  });

  it('gateway: OpenRouter /models after checking the key at /key', async () => {
    const body = await (await catalog(`providerId=${providers.gateway!.id}`)).json();
    expect(body.providerType).toBe('gateway');
    expect(body.data[0]).toEqual({
      providerType: 'gateway',
      model: 'gateway/anthropic/claude-sonnet-4.5',
      catalogId: 'anthropic/claude-sonnet-4.5',
      displayName: 'Anthropic: Claude Sonnet 4.5',
      contextWindow: 1000000,
      outputLimit: 64000,
      reasoning: true,
      // The published per-token prices, per million tokens.
      pricesUsd: { input: 3, output: 15, cacheRead: null, cacheWrite: null },
      runtimeSupported: true,
    });
    const supported = Object.fromEntries(body.data.map((entry: { catalogId: string; runtimeSupported: boolean }) => [entry.catalogId, entry.runtimeSupported]));
    expect(supported).toEqual({
      'anthropic/claude-sonnet-4.5': true,
      'openai/gpt-4o': true,
      'google/gemini-2.5-flash-image': false,
      'meta-llama/llama-guard-4-12b': false,
    });
    expect(body.data[3]).toMatchObject({ contextWindow: 163840, outputLimit: null });
  });

  it('search and limit', async () => {
    const searched = await (await catalog(`providerId=${providers.vendor_b!.id}&search=SONNET`)).json();
    expect(searched.data.map((entry: { catalogId: string }) => entry.catalogId)).toEqual(['claude-sonnet-4-6']);
    const limited = await (await catalog(`providerId=${providers.vendor_a!.id}&search=gpt&limit=2`)).json();
    expect(limited.data).toHaveLength(2);
    expect(limited.total).toBe(3);
    const byDisplayName = await (await catalog(`providerId=${providers.gateway!.id}&search=${encodeURIComponent('openai: gpt')}`)).json();
    expect(byDisplayName.data.map((entry: { catalogId: string }) => entry.catalogId)).toEqual(['openai/gpt-4o']);
  });

  it('validates the query and the scope', async () => {
    for (const [query, path] of [
      ['', 'query.providerId'],
      ['providerId=nope', 'query.providerId'],
      [`providerId=${providers.vendor_a!.id}&limit=0`, 'query.limit'],
      [`providerId=${providers.vendor_a!.id}&limit=201`, 'query.limit'],
    ] as const) {
      const response = await catalog(query);
      expect(response.status).toBe(400);
      expect((await errorOf(response)).details.path).toBe(path);
    }
    const noRead = (await t.createApiKey(['run:read'])).secret;
    const forbidden = await catalog(`providerId=${providers.vendor_a!.id}`, noRead);
    expect(forbidden.status).toBe(403);
    expect((await errorOf(forbidden)).message).toContain('agent:read');
  });

  it('a rejected key is a 400 that never carries the key or the vendor body', async () => {
    const badKeys = { gateway: 'sk-or-v1-wrong-0009', vendor_a: 'sk-proj-wrong-0009', vendor_b: 'sk-ant-wrong-0009', vendor_c: 'AIzaWrong0009' } as const;
    for (const type of ['gateway', 'vendor_a', 'vendor_b', 'vendor_c'] as const) {
      const rotated = await t.request('PUT', `/v1/projects/${projectId}/model-providers/${providers[type]!.id}/credential`, {
        apiKey: admin,
        body: { apiKey: badKeys[type] },
      });
      expect(rotated.status).toBe(200);
      const response = await catalog(`providerId=${providers[type]!.id}`);
      const text = await response.clone().text();
      expect(response.status).toBe(400);
      const error = await errorOf(response);
      expect(error).toMatchObject({ code: 'bad_request', details: { reason: 'provider_rejected_credential' } });
      expect(error.message).toContain('rejected the credential');
      expect(text).not.toContain(badKeys[type]);
      expect(text).not.toMatch(/Incorrect API key|invalid x-api-key|API key not valid|User not found/);
      // A preset cannot be created through a rejected key either.
      const preset = await t.request('POST', `/v1/projects/${projectId}/model-presets`, {
        apiKey: admin,
        body: { key: `bad-${type.replace('_', '-')}`, displayName: 'x', providerId: providers[type]!.id, model: `${type}/x` },
      });
      expect(preset.status).toBe(400);
      await t.request('PUT', `/v1/projects/${projectId}/model-providers/${providers[type]!.id}/credential`, {
        apiKey: admin,
        body: { apiKey: FAKE_KEYS[type] },
      });
    }
    for (const secret of Object.values(badKeys)) expect(t.logLines.join('\n')).not.toContain(secret);
  });

  it('a failing vendor is a 500 with a reason and no vendor body', async () => {
    fakes.failWith.vendor_b = 503;
    try {
      const response = await catalog(`providerId=${providers.vendor_b!.id}`);
      expect(response.status).toBe(500);
      const error = await errorOf(response);
      expect(error).toMatchObject({ code: 'internal_error', details: { reason: 'provider_error', providerStatus: 503 } });
      expect(error.message).toContain('vendor_b');
      expect(error.message).not.toContain('overloaded');
    } finally {
      delete fakes.failWith.vendor_b;
    }
  });
});

describe('an unreachable provider', () => {
  let unreachable: TestApp;
  afterAll(() => unreachable?.close());

  it('answers a clear 500 envelope naming the reason, without the key', async () => {
    unreachable = await createTestApp({ env: { ...fakes.env, SVC_MODEL_BASE_URL_VENDOR_A: await closedPortUrl() } });
    const project = (await unreachable.login()).context.project.id;
    const key = (await unreachable.createApiKey(['*'])).secret;
    const provider = await createProvider(unreachable, { apiKey: key, projectId: project, key: 'openai', providerType: 'vendor_a' });
    const response = await unreachable.request('GET', `/v1/projects/${project}/model-catalog?providerId=${provider.id}`, { apiKey: key });
    const text = await response.clone().text();
    expect(response.status).toBe(500);
    expect(await errorOf(response)).toMatchObject({
      code: 'internal_error',
      message: expect.stringContaining('could not be reached'),
      details: { reason: 'provider_unreachable' },
    });
    expect(text).not.toContain(FAKE_KEYS.vendor_a);
    expect(unreachable.logLines.join('\n')).not.toContain(FAKE_KEYS.vendor_a);
  });
});
