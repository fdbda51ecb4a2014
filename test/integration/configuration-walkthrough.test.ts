import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeModelProviders, type FakeModelProviders } from '../fixtures/model-vendors/catalog-server.ts';
import { FAKE_KEYS } from '../fixtures/model-vendors/catalog-server.ts';
import { createTestApp, type TestApp } from '../support/app.ts';

/**
 * The configuration plane end to end, through the HTTP API only: provider → catalog → preset →
 * agent → version 2 → Skill bound → Skill disabled → publication refused → Skill re-enabled →
 * published.
 */
let t: TestApp;
let fakes: FakeModelProviders;

beforeAll(async () => {
  fakes = await startFakeModelProviders();
  t = await createTestApp({ env: fakes.env });
});
afterAll(async () => {
  await t?.close();
  await fakes?.close();
});

describe('configuration walkthrough', () => {
  it('provider → catalog → preset → agent → v2 → Skill bound → disabled → refused → re-enabled → published', async () => {
    const { context } = await t.login();
    const project = `/v1/projects/${context.project.id}`;
    const key = (await t.createApiKey(['*'])).secret;
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await t.request(method, `${project}${path}`, { apiKey: key, body });
      return { status: response.status, body: await response.json() };
    };

    const provider = await call('POST', '/model-providers', {
      key: 'anthropic',
      displayName: 'Anthropic',
      providerType: 'vendor_b',
      apiKey: FAKE_KEYS.vendor_b,
    });
    expect(provider.status).toBe(201);
    expect(provider.body).toMatchObject({ credentialConfigured: true, credentialVersion: 1 });
    expect(provider.body.credentialFingerprint).toHaveLength(12);

    const catalog = await call('GET', `/model-catalog?providerId=${provider.body.id}&search=opus`);
    expect(catalog.status).toBe(200);
    const model = catalog.body.data.find((entry: { runtimeSupported: boolean }) => entry.runtimeSupported);
    expect(model.model).toMatch(/^vendor_b\//);

    const preset = await call('POST', '/model-presets', {
      key: 'deep',
      displayName: 'Deep thinker',
      providerId: provider.body.id,
      model: model.model,
      routing: {},
    });
    expect(preset.status).toBe(201);
    expect(preset.body.settings).toMatchObject({ thinking: 'adaptive', maxTokens: 20000, effort: 'high' });

    const baseConfig = { systemPrompt: 'You answer questions about orders.', modelPreset: 'deep', limits: { maxTurns: 16 } };
    const agent = await call('POST', '/agents', { name: 'Order helper', initialConfig: baseConfig });
    expect(agent.status).toBe(201);
    expect(agent.body.version).toBe(1);
    const versions = `/agents/${agent.body.id}/versions`;

    const v2 = await call('POST', versions, { config: { ...baseConfig, systemPrompt: 'You answer questions about orders, briefly.' } });
    expect(v2.status).toBe(201);
    expect(v2.body.version).toBe(2);

    const skill = await call('POST', '/skills', {
      key: 'refunds',
      displayName: 'Refunds',
      name: 'refund-policy',
      description: 'How refunds work',
      instructions: '# Refunds\nRefunds are possible within 30 days.',
      files: [{ path: 'reference/limits.md', contentType: 'text/markdown', dataBase64: Buffer.from('# Limits\n').toString('base64') }],
    });
    expect(skill.status).toBe(201);
    const skillVersionId = skill.body.latestVersion.id;

    const v3 = await call('POST', versions, { config: { ...baseConfig, skillVersionIds: [skillVersionId] } });
    expect(v3.status).toBe(201);
    expect(v3.body.config.skillVersionIds).toEqual([skillVersionId]);

    const disabled = await call('PATCH', `/skills/${skill.body.id}`, { enabled: false });
    expect(disabled.body).toMatchObject({ id: skill.body.id, key: 'refunds', enabled: false });
    expect(disabled.body.disabledAt).not.toBeNull();

    const withSkill = { ...baseConfig, systemPrompt: 'Orders and refunds.', skillVersionIds: [skillVersionId] };
    const refused = await call('POST', versions, { config: withSkill });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('bad_request');
    expect(refused.body.error.details.path).toBe('body.config.skillVersionIds[0]');

    const enabled = await call('PATCH', `/skills/${skill.body.id}`, { enabled: true });
    expect(enabled.body).toMatchObject({ enabled: true, disabledAt: null });

    const published = await call('POST', versions, { config: withSkill });
    expect(published.status).toBe(201);
    expect(published.body.version).toBe(4);

    const detail = await call('GET', `/agents/${agent.body.id}`);
    expect(detail.body).toMatchObject({ version: 4, model: 'deep' });
    expect(detail.body.versions.map((v: { version: number }) => v.version)).toEqual([4, 3, 2, 1]);
    const contextNow = await (await t.request('GET', '/v1/context', { apiKey: key })).json();
    expect(contextNow.activeModelPresets).toContain('deep');
  });
});
