import { expect } from 'vitest';
import { type Clock, type ServiceContext, systemContext } from '../../services/kernel/service-context.ts';
import { createProvider } from '../fixtures/model-vendors/helpers.ts';
import { startFakeModelProviders } from '../fixtures/model-vendors/catalog-server.ts';
import { createTestApp } from './app.ts';

/** Tool schemas as a published version pins them, for tool-call and approval service tests. */
export const orderSchema = {
  type: 'object',
  properties: {
    orderId: { type: 'string', format: 'uuid' },
    items: { type: 'array', items: { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] } },
  },
  required: ['orderId'],
  additionalProperties: false,
};
export const totalSchema = { type: 'object', properties: { total: { type: 'number' } }, required: ['total'] };
export const ORDER = '2b0f7a9e-0d7c-4a53-9a55-4c1f3f6d2a10';

export const tool = (name: string, owner: 'caller' | 'platform', approval: 'never' | 'always', description: string) => ({
  name,
  description,
  owner,
  approval,
  inputSchema: orderSchema,
  outputSchema: totalSchema,
});

/**
 * An app (no worker: runs stay queued, tests drive the tool-call services as the workflow would)
 * with a vendor_a preset and one agent publishing `tools`.
 */
export async function startToolCallApp(tools: unknown[], clock: Clock) {
  const fakes = await startFakeModelProviders();
  const t = await createTestApp({ env: fakes.env, clock });
  const projectId = (await t.login()).context.project.id;
  const admin = (await t.createApiKey(['*'])).secret;
  const provider = await createProvider(t, { apiKey: admin, projectId, key: 'openai', providerType: 'vendor_a' });
  const preset = await t.request('POST', `/v1/projects/${projectId}/model-presets`, {
    apiKey: admin,
    body: { key: 'fast', displayName: 'Fast', providerId: provider.id, model: 'vendor_a/gpt-5.1', routing: {}, settings: { effort: 'low' } },
  });
  expect(preset.status).toBe(201);
  const config = { systemPrompt: 'You are a careful assistant for the support team.', modelPreset: 'fast', tools, limits: { maxTurns: 8 } };
  const created = await t.request('POST', `/v1/projects/${projectId}/agents`, { apiKey: admin, body: { name: 'Tools', initialConfig: config } });
  expect(created.status, await created.clone().text()).toBe(201);
  const agentId: string = (await created.json()).id;
  const p = (path: string) => `/v1/projects/${projectId}${path}`;
  /** A system context, as the workflow's activities use. */
  const sys = (): ServiceContext => systemContext({ db: t.database.db, logger: t.deps.logger, clock: clock });
  /** A queued run of the agent (no worker runs here, so it stays queued). */
  const newRun = async (): Promise<{ runId: string; sessionId: string }> => {
    const response = await t.request('POST', p('/sessions'), { apiKey: admin, body: { agentId, initialMessage: 'Help with my order' } });
    expect(response.status, await response.clone().text()).toBe(201);
    const session = await response.json();
    return { runId: session.run.id, sessionId: session.id };
  };
  return { t, fakes, projectId, admin, agentId, p, sys, newRun };
}
