import { expect } from 'vitest';
import { FAKE_KEYS } from '../fixtures/model-vendors/catalog-server.ts';
import type { TestApp } from './app.ts';

/**
 * An organization with every kind of configuration a backup carries, built through the HTTP
 * API: model providers (one archived), presets (one archived), sandbox and storage providers, an
 * MCP server with a discovered version, credentials (one revoked), a policy with two versions,
 * a toolset; Skills with files (a revoked version, a disabled Skill, a removed one); agents with
 * several versions binding Skills, MCP tools, Harness Operations and a delegate; an archived
 * agent; webhooks (one disabled); memory stores (one archived, one with a memory, whose content
 * a backup leaves out); schedules (one attaching both stores, one pinned to a version, one
 * deleted, one sending turns to a session, which a backup leaves out); and a second project. Returns every secret it
 * used, so a test can scan a backup for them.
 */
export type RichOrganization = {
  secrets: string[];
  /** The credentials a restore of this organization's backup needs, by connection key. */
  credentials: {
    modelProvider: string;
    sandboxProvider: string;
    storage: { accessKeyId: string; secretAccessKey: string };
    mcpCredential: string;
    webhookSecrets: string[];
  };
  helperAgentKey: string;
};

export const RICH_SECRETS = {
  storage: { accessKeyId: 'AKIARICHORGANIZATION1', secretAccessKey: 'rich-organization-secret-access-key-0001' },
  sandboxApiKey: 'sbx-live-rich-organization-key-0001',
  mcpBearer: 'mcp-rich-organization-bearer-0001',
  revokedMcpBearer: 'mcp-rich-organization-bearer-old-0002',
  archivedProviderKey: 'sk-proj-rich-organization-archived-0003',
  webhookSecrets: [
    'whsec_' + Buffer.from('rich-organization-webhook-secret-01').toString('base64'),
    'whsec_' + Buffer.from('rich-organization-webhook-secret-02').toString('base64'),
  ],
};

/** The content of a memory in the organization: a backup never holds it. */
export const RICH_MEMORY_CONTENT = 'Acme renews in March; ask for Dana, never for the CFO.';

export async function buildRichOrganization(
  t: TestApp,
  options: { apiKey: string; projectId: string; mcpUrl: string; mcpOrigin: string; webhookUrl: string },
): Promise<RichOrganization> {
  const call = async (method: string, path: string, body?: unknown, projectId = options.projectId) => {
    const response = await t.request(method, `/v1/projects/${projectId}${path}`, { apiKey: options.apiKey, body });
    const json = await response.json();
    expect(response.status, `${method} ${path}: ${JSON.stringify(json)}`).toBeLessThan(300);
    return json;
  };

  const provider = await call('POST', '/model-providers', { key: 'openai', displayName: 'OpenAI', providerType: 'vendor_a', apiKey: FAKE_KEYS.vendor_a });
  const archivedProvider = await call('POST', '/model-providers', {
    key: 'legacy',
    displayName: 'Legacy',
    providerType: 'vendor_a',
    apiKey: RICH_SECRETS.archivedProviderKey,
  });
  await call('POST', '/model-presets', {
    key: 'fast',
    displayName: 'Fast',
    providerId: provider.id,
    model: 'vendor_a/gpt-5.1',
    routing: {},
    prices: { input: 1.25, output: 10, cacheRead: 0.125 },
  });
  const retired = await call('POST', '/model-presets', {
    key: 'retired',
    displayName: 'Retired',
    providerId: provider.id,
    model: 'vendor_a/gpt-5.1',
    routing: {},
  });
  await call('DELETE', `/model-presets/${retired.id}`);
  await call('DELETE', `/model-providers/${archivedProvider.id}`);

  await call('POST', '/sandbox-providers', {
    key: 'sandbox',
    displayName: 'Sandbox',
    providerType: 'sandbox_vendor',
    apiKey: RICH_SECRETS.sandboxApiKey,
    restrictedEgress: { allowedDomains: ['example.com'], allowedCidrs: [] },
  });
  await call('POST', '/storage-providers', {
    key: 'archive',
    displayName: 'Archive',
    providerType: 's3',
    endpoint: 'https://s3.example.com',
    region: 'eu-west-1',
    bucket: 'agents',
    prefix: 'svc/',
    forcePathStyle: true,
    setDefault: true,
    ...RICH_SECRETS.storage,
  });

  const server = await call('POST', '/mcp-servers', { key: 'tools', displayName: 'Tools', endpointUrl: options.mcpUrl, transport: 'streamable_http' });
  const credential = await call('POST', '/mcp-credentials', {
    key: 'tools-token',
    displayName: 'Tools token',
    kind: 'static_bearer',
    secret: RICH_SECRETS.mcpBearer,
  });
  const oldCredential = await call('POST', '/mcp-credentials', {
    key: 'old-token',
    displayName: 'Old token',
    kind: 'api_key_header',
    headerName: 'X-Api-Key',
    secret: RICH_SECRETS.revokedMcpBearer,
  });
  await call('DELETE', `/mcp-credentials/${oldCredential.id}`);
  const policyBody = {
    key: 'tools-policy',
    displayName: 'Tools',
    credentialId: credential.id,
    exactOrigin: options.mcpOrigin,
    pathPrefix: '/mcp',
    timeoutMs: 10_000,
    maximumResponseBytes: 1_000_000,
  };
  await call('POST', '/mcp-credential-policies', policyBody);
  const policy = await call('POST', '/mcp-credential-policies', { ...policyBody, displayName: 'Tools (v2)', timeoutMs: 20_000 });
  const discovered = await call('POST', `/mcp-servers/${server.id}/discover`, { credentialPolicyVersionId: policy.id });
  const toolset = await call('POST', '/mcp-toolsets', {
    key: 'echo-tools',
    displayName: 'Echo tools',
    serverVersionId: discovered.version.id,
    tools: [{ remoteToolName: 'echo', approval: 'never' }],
  });

  const file = (text: string) => Buffer.from(text).toString('base64');
  const skill = await call('POST', '/skills', {
    key: 'refunds',
    displayName: 'Refunds',
    name: 'refund-policy',
    description: 'How refunds work',
    instructions: '# Refunds\nRefunds are possible within 30 days.',
    files: [
      { path: 'reference/limits.md', contentType: 'text/markdown', dataBase64: file('# Limits\n') },
      { path: 'reference/regions/eu.md', contentType: 'text/markdown', dataBase64: file('# EU\n') },
    ],
  });
  const skillV2 = await call('POST', `/skills/${skill.id}/versions`, {
    name: 'refund-policy',
    description: 'How refunds work (v2)',
    instructions: '# Refunds\nWithin 60 days.',
    files: [],
  });
  await call('PATCH', `/skills/${skill.id}/versions/${skill.versions[0].id}/lifecycle`, { status: 'revoked' });
  const disabledSkill = await call('POST', '/skills', {
    key: 'tone',
    displayName: 'Tone',
    name: 'tone',
    description: 'Tone of voice',
    instructions: 'Be kind.',
  });
  await call('PATCH', `/skills/${disabledSkill.id}`, { enabled: false });
  const removedSkill = await call('POST', '/skills', { key: 'gone', displayName: 'Gone', name: 'gone', description: 'Removed', instructions: 'Gone.' });
  await call('DELETE', `/skills/${removedSkill.id}`);

  const base = { systemPrompt: 'You are a helpful assistant.', modelPreset: 'fast', limits: { maxTurns: 8 } };
  const child = await call('POST', '/agents', { key: 'researcher', name: 'Researcher', initialConfig: base });
  const helper = await call('POST', '/agents', { key: 'helper', name: 'Helper', description: 'Helps.', initialConfig: base });
  await call('POST', `/agents/${helper.id}/versions`, { config: { ...base, skillVersionIds: [skillV2.id] } });
  await call('POST', `/agents/${helper.id}/versions`, {
    config: {
      ...base,
      skillVersionIds: [skillV2.id],
      mcpBindings: [{ toolsetVersionId: toolset.latestVersionId, credentialPolicyVersionId: policy.id, namespace: 'tools' }],
      harnessOperations: [
        {
          key: 'summarize',
          description: 'Summarize',
          instructions: 'Summarize the text.',
          resultSchema: { type: 'object', properties: { summary: { type: 'string' } }, required: ['summary'] },
          timeoutMs: 30_000,
        },
      ],
      delegates: [{ key: 'research', description: 'Research things.', agentVersionId: child.latestVersionId, maxParallel: 2 }],
    },
  });
  const archivedAgent = await call('POST', '/agents', { key: 'old-helper', name: 'Old helper', initialConfig: base });
  await call('DELETE', `/agents/${archivedAgent.id}`);

  await call('POST', '/event-webhooks', {
    displayName: 'Receiver',
    endpointUrl: options.webhookUrl,
    signingSecret: RICH_SECRETS.webhookSecrets[0],
    eventKinds: ['run.*'],
    includeMessageContent: true,
  });
  const paused = await call('POST', '/event-webhooks', {
    displayName: 'Paused',
    endpointUrl: options.webhookUrl,
    signingSecret: RICH_SECRETS.webhookSecrets[1],
  });
  await call('PATCH', `/event-webhooks/${paused.id}`, { enabled: false });

  // Memory stores: their definitions are configuration, their memories are data (left out).
  const notes = await call('POST', '/memory-stores', { name: 'Customer notes', description: 'What we know.', metadata: { team: 'support' } });
  await call('POST', `/memory-stores/${notes.id}/memories`, { path: '/acme.md', content: RICH_MEMORY_CONTENT });
  const old = await call('POST', '/memory-stores', { name: 'Old notes' });
  await call('POST', `/memory-stores/${old.id}/archive`);

  await call('POST', '/schedules', {
    name: 'Morning report',
    agentId: helper.id,
    cron: '0 9 * * MON-FRI',
    timeZone: 'Europe/Paris',
    message: 'Write the morning report.',
    memoryStores: [
      { storeId: notes.id, access: 'read_write', instructions: 'One file per customer.' },
      { storeId: old.id, access: 'read_only' },
    ],
  });
  await call('POST', '/schedules', {
    agentVersionId: child.latestVersionId,
    intervalSeconds: 3600,
    overlap: 'buffer_one',
    catchupWindowSeconds: 600,
    message: 'Research the news.',
    paused: true,
  });
  const dropped = await call('POST', '/schedules', { name: 'Dropped', agentId: helper.id, intervalSeconds: 60, message: 'Never mind.' });
  await call('DELETE', `/schedules/${dropped.id}`);
  const idle = await call('POST', '/sessions', { agentId: helper.id });
  await call('POST', '/schedules', { name: 'Nudge', target: 'session', sessionId: idle.id, intervalSeconds: 86_400, message: 'Anything new?' });

  const research = (await (await t.request('POST', '/v1/projects', { apiKey: options.apiKey, body: { slug: 'research', name: 'Research' } })).json())
    .id as string;
  await call('POST', '/model-presets', { key: 'fast', displayName: 'Fast', providerId: provider.id, model: 'vendor_a/gpt-5.1', routing: {} }, research);
  await call('POST', '/agents', { key: 'analyst', name: 'Analyst', initialConfig: base }, research);
  await t.request('PATCH', `/v1/projects/${research}`, { apiKey: options.apiKey, body: { budget: { maxMonthlyCost: 250, maxMonthlyTokens: null } } });

  return {
    secrets: [
      FAKE_KEYS.vendor_a,
      RICH_SECRETS.archivedProviderKey,
      RICH_SECRETS.sandboxApiKey,
      RICH_SECRETS.storage.accessKeyId,
      RICH_SECRETS.storage.secretAccessKey,
      RICH_SECRETS.mcpBearer,
      RICH_SECRETS.revokedMcpBearer,
      ...RICH_SECRETS.webhookSecrets,
      options.apiKey,
    ],
    credentials: {
      modelProvider: FAKE_KEYS.vendor_a,
      sandboxProvider: RICH_SECRETS.sandboxApiKey,
      storage: RICH_SECRETS.storage,
      mcpCredential: RICH_SECRETS.mcpBearer,
      webhookSecrets: RICH_SECRETS.webhookSecrets,
    },
    helperAgentKey: 'helper',
  };
}
