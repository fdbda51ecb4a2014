import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEntries, mcpServerVersions } from '../../db/schema/index.ts';
import { DEFAULT_TOOLS, startMcpFixtureServer, type FixtureTool, type McpFixtureServer } from '../fixtures/mcp/server.ts';
import { createTestApp, type TestApp } from '../support/app.ts';

/**
 * Discovery against a real MCP server (test/fixtures/mcp, built with the SDK's server classes)
 * over both transports: snapshots exactly as served, a version only when tool metadata changes,
 * toolsets pinned to their version, authenticated discovery only through a policy that contains
 * the endpoint, and the credential never sent otherwise. The development setting allows the
 * fixture's http://127.0.0.1 endpoint (mcp-configuration.test.ts shows the refusal without it).
 */
let t: TestApp;
let fixture: McpFixtureServer;
let projectId: string;
let admin: string;
const BEARER = 'mcp-fixture-bearer-0001';

beforeAll(async () => {
  fixture = await startMcpFixtureServer();
  t = await createTestApp({ env: { SVC_OUTBOUND_ALLOW_PRIVATE_NETWORK: 'true' } });
  projectId = (await t.login()).context.project.id;
  admin = (await t.createApiKey(['*'])).secret;
});
afterAll(async () => {
  await t?.close();
  await fixture?.close();
});

async function call(method: string, path: string, body?: unknown, options: { idempotencyKey?: string } = {}) {
  const response = await t.request(method, `/v1/projects/${projectId}${path}`, {
    apiKey: admin,
    body,
    ...(options.idempotencyKey ? { idempotencyKey: options.idempotencyKey } : {}),
  });
  return { status: response.status, body: await response.json(), headers: response.headers };
}

async function server(key: string, transport: 'streamable_http' | 'legacy_sse' = 'streamable_http') {
  const created = await call('POST', '/mcp-servers', {
    key,
    displayName: key,
    endpointUrl: transport === 'streamable_http' ? fixture.streamableUrl : fixture.sseUrl,
    transport,
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body;
}

async function policy(key: string, input: { kind?: 'static_bearer' | 'api_key_header'; exactOrigin?: string; pathPrefix?: string; secret?: string } = {}) {
  const credential = await call('POST', '/mcp-credentials', {
    key: `${key}-cred`,
    displayName: key,
    kind: input.kind ?? 'static_bearer',
    headerName: input.kind === 'api_key_header' ? 'X-Api-Key' : null,
    secret: input.secret ?? BEARER,
  });
  expect(credential.status, JSON.stringify(credential.body)).toBe(201);
  const created = await call('POST', '/mcp-credential-policies', {
    key,
    displayName: key,
    credentialId: credential.body.id,
    exactOrigin: input.exactOrigin ?? fixture.url,
    pathPrefix: input.pathPrefix ?? '/',
    timeoutMs: 5_000,
    maximumResponseBytes: 1_048_576,
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return { credential: credential.body, version: created.body };
}

const snapshotOf = (tools: FixtureTool[]) =>
  tools.map((tool) => ({ name: tool.name, description: tool.description ?? null, inputSchema: tool.inputSchema })).sort((a, b) => a.name.localeCompare(b.name));

describe.each(['streamable_http', 'legacy_sse'] as const)('discovery over %s', (transport) => {
  it('publishes a version with the served tools only when their metadata changes; toolsets stay pinned', async () => {
    const created = await server(`tools-${transport}`, transport);
    const first = await call('POST', `/mcp-servers/${created.id}/discover`);
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.body.changed).toBe(true);
    expect(first.body.version).toMatchObject({ version: 2, tools: snapshotOf(DEFAULT_TOOLS), discoveredAt: expect.any(String) });
    expect(first.body.server.latestVersion).toBe(2);

    const unchanged = await call('POST', `/mcp-servers/${created.id}/discover`, {});
    expect(unchanged.status).toBe(200);
    expect(unchanged.body).toMatchObject({ changed: false, version: { id: first.body.version.id, version: 2 } });

    const toolset = await call('POST', '/mcp-toolsets', {
      key: `ts-${transport}`,
      displayName: 'Echo only',
      serverVersionId: first.body.version.id,
      tools: [{ remoteToolName: 'echo', approval: true }],
    });
    expect(toolset.status, JSON.stringify(toolset.body)).toBe(201);
    expect(toolset.body.versions[0]).toMatchObject({
      version: 1,
      serverVersionId: first.body.version.id,
      tools: [{ remoteToolName: 'echo', approval: 'always' }],
    });

    fixture.setTools([
      ...DEFAULT_TOOLS.filter((tool) => tool.name !== 'big'),
      { name: 'new_tool', inputSchema: { type: 'object', properties: { q: { type: 'string' } } } },
    ]);
    try {
      const changed = await call('POST', `/mcp-servers/${created.id}/discover`);
      expect(changed.status).toBe(201);
      expect(changed.body.version.version).toBe(3);
      expect(changed.body.version.tools.map((tool: { name: string }) => tool.name)).toEqual(['add_numbers', 'echo', 'fail', 'new_tool', 'slow']);
      expect(changed.body.server.versions.map((version: { version: number }) => version.version)).toEqual([3, 2, 1]);
    } finally {
      fixture.setTools(DEFAULT_TOOLS);
    }
    const toolsets = await call('GET', '/mcp-toolsets');
    const pinned = toolsets.body.data.find((entry: { key: string }) => entry.key === `ts-${transport}`);
    expect(pinned.versions.map((version: { serverVersionId: string }) => version.serverVersionId)).toEqual([first.body.version.id]);
    // Order of the listing does not make a new version; metadata does.
    const versions = await t.database.db.select().from(mcpServerVersions).where(eq(mcpServerVersions.serverId, created.id));
    expect(versions.map((version) => version.version).sort()).toEqual([1, 2, 3]);
  });
});

describe('authenticated discovery', () => {
  it('sends the credential only through an active policy that contains the endpoint', async () => {
    const created = await server('private-tools');
    fixture.requireHeader('authorization', `Bearer ${BEARER}`);
    try {
      const anonymous = await call('POST', `/mcp-servers/${created.id}/discover`);
      expect(anonymous.status).toBe(400);
      expect(anonymous.body.error.details).toMatchObject({ reason: 'http_status' });
      expect(anonymous.body.error.message).toContain('HTTP 401');

      const sent = fixture.requests.length;
      const elsewhere = await policy('elsewhere', { exactOrigin: 'http://127.0.0.2:9' });
      const wrongOrigin = await call('POST', `/mcp-servers/${created.id}/discover`, { credentialPolicyVersionId: elsewhere.version.id });
      expect(wrongOrigin.status).toBe(400);
      expect(wrongOrigin.body.error.details.path).toBe('body.credentialPolicyVersionId');
      const narrow = await policy('narrow', { pathPrefix: '/other' });
      expect((await call('POST', `/mcp-servers/${created.id}/discover`, { credentialPolicyVersionId: narrow.version.id })).status).toBe(400);
      const revoked = await policy('revoked');
      await call('DELETE', `/mcp-credentials/${revoked.credential.id}`);
      const inactive = await call('POST', `/mcp-servers/${created.id}/discover`, { credentialPolicyVersionId: revoked.version.id });
      expect(inactive.status).toBe(400);
      expect(inactive.body.error.message).toMatch(/not active/);
      // None of the refused discoveries reached the server.
      expect(fixture.requests.length).toBe(sent);

      const allowed = await policy('allowed', { pathPrefix: '/mcp' });
      const discovered = await call('POST', `/mcp-servers/${created.id}/discover`, { credentialPolicyVersionId: allowed.version.id });
      expect(discovered.status, JSON.stringify(discovered.body)).toBe(201);
      expect(discovered.body.version.tools).toHaveLength(DEFAULT_TOOLS.length);
      const authorized = fixture.requests.slice(sent);
      expect(authorized.length).toBeGreaterThan(0);
      for (const request of authorized) expect(request.headers.authorization).toBe(`Bearer ${BEARER}`);
    } finally {
      fixture.requireHeader('authorization', null);
    }
  });

  it('sends an api_key_header credential in its header on every request of the legacy SSE transport', async () => {
    const created = await server('keyed-tools', 'legacy_sse');
    fixture.requireHeader('x-api-key', 'keyed-secret-0001');
    try {
      const keyed = await policy('keyed', { kind: 'api_key_header', secret: 'keyed-secret-0001' });
      const before = fixture.requests.length;
      const discovered = await call('POST', `/mcp-servers/${created.id}/discover`, { credentialPolicyVersionId: keyed.version.id });
      expect(discovered.status, JSON.stringify(discovered.body)).toBe(201);
      const last = fixture.requests.slice(before);
      expect(last.map((request) => `${request.method} ${request.path}`)).toEqual(expect.arrayContaining(['GET /sse', 'POST /messages']));
      for (const request of last) expect([request.headers['x-api-key'], request.headers.authorization]).toEqual(['keyed-secret-0001', undefined]);
    } finally {
      fixture.requireHeader('x-api-key', null);
    }
  });
});

describe('discovery limits and failures', () => {
  it('refuses a server with more than 256 tools and publishes nothing', async () => {
    const created = await server('too-many');
    fixture.setTools(Array.from({ length: 257 }, (_, i) => ({ name: `tool_${i}`, inputSchema: { type: 'object' } })));
    try {
      const refused = await call('POST', `/mcp-servers/${created.id}/discover`);
      expect(refused.status).toBe(400);
      expect(refused.body.error.details).toEqual({ reason: 'too_many_tools' });
      fixture.setTools(Array.from({ length: 256 }, (_, i) => ({ name: `tool_${i}`, inputSchema: { type: 'object' } })));
      const exactly = await call('POST', `/mcp-servers/${created.id}/discover`);
      expect(exactly.status).toBe(201);
      expect(exactly.body.version.tools).toHaveLength(256);
    } finally {
      fixture.setTools(DEFAULT_TOOLS);
    }
  });

  it('reports an unreachable server as a 400 with its reason, and replays an idempotent discovery', async () => {
    const closed = await startMcpFixtureServer();
    const endpoint = closed.streamableUrl;
    await closed.close();
    const created = await call('POST', '/mcp-servers', { key: 'gone', displayName: 'Gone', endpointUrl: endpoint, transport: 'streamable_http' });
    const refused = await call('POST', `/mcp-servers/${created.body.id}/discover`);
    expect(refused.status).toBe(400);
    expect(refused.body.error.details.reason).toBe('connection_failed');
    expect((await call('POST', `/mcp-servers/${crypto.randomUUID()}/discover`)).status).toBe(404);

    const live = await server('replayed-discovery');
    const first = await call('POST', `/mcp-servers/${live.id}/discover`, undefined, { idempotencyKey: 'discover-once' });
    const requests = fixture.requests.length;
    const again = await call('POST', `/mcp-servers/${live.id}/discover`, undefined, { idempotencyKey: 'discover-once' });
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(fixture.requests.length).toBe(requests);
  });

  it('audits discoveries without secrets', async () => {
    const audit = await t.database.db.select().from(auditEntries).where(eq(auditEntries.action, 'mcp_server.discovered'));
    expect(audit.length).toBeGreaterThan(0);
    expect(JSON.stringify(audit)).not.toContain(BEARER);
    for (const line of t.logLines) expect(line).not.toContain(BEARER);
  });
});
