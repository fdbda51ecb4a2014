import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEntries, mcpCredentials, mcpServerVersions } from '../../db/schema/index.ts';
import { createTestApp, type TestApp } from '../support/app.ts';

/**
 * MCP configuration routes (spec 2 "MCP servers, credentials, policies, toolsets"): every field,
 * the scope of each route, idempotent replays, bad input → 400 with its path, and no secret in
 * any response, audit entry or log line. Discovery against a real MCP server is in
 * mcp-discovery.test.ts.
 */
let t: TestApp;
let projectId: string;
let admin: string;
let responseTexts: string[] = [];
const SECRET = 'mcp-secret-token-0001';
const ROTATED = 'mcp-secret-token-0002';
const API_KEY_SECRET = 'mcp-api-key-header-0003';

beforeAll(async () => {
  t = await createTestApp();
  projectId = (await t.login()).context.project.id;
  admin = (await t.createApiKey(['*'])).secret;
  responseTexts = t.recordResponseTexts();
});
afterAll(() => t.close());

async function call(method: string, path: string, body?: unknown, options: { apiKey?: string; idempotencyKey?: string } = {}) {
  const response = await t.request(method, `/v1/projects/${projectId}${path}`, {
    apiKey: options.apiKey ?? admin,
    body,
    ...(options.idempotencyKey ? { idempotencyKey: options.idempotencyKey } : {}),
  });
  return { status: response.status, body: await response.json(), headers: response.headers };
}

const withScopes = async (...scopes: string[]) => (await t.createApiKey(scopes, `scoped-${randomUUID().slice(0, 6)}`)).secret;

describe('MCP credentials', () => {
  it('stores a static bearer credential write-only and shows its fingerprint, version and lifecycle', async () => {
    const created = await call('POST', '/mcp-credentials', { key: 'crm', displayName: 'CRM token', kind: 'static_bearer', headerName: null, secret: SECRET });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual(
      [
        'createdAt',
        'credentialConfigured',
        'credentialFingerprint',
        'credentialVersion',
        'displayName',
        'headerName',
        'id',
        'key',
        'kind',
        'lifecycle',
        'organizationId',
        'revokedAt',
        'updatedAt',
      ].sort(),
    );
    expect(created.body).toMatchObject({
      key: 'crm',
      kind: 'static_bearer',
      headerName: null,
      lifecycle: 'active',
      credentialConfigured: true,
      credentialVersion: 1,
      revokedAt: null,
    });
    expect(created.body.credentialFingerprint).toMatch(/^[0-9a-f]{12}$/);
    const [row] = await t.database.db.select().from(mcpCredentials).where(eq(mcpCredentials.id, created.body.id));
    expect(t.deps.keyring.decrypt(row!.credentialCiphertext!, `mcp_credential:${created.body.id}`)).toBe(SECRET);

    const headerKind = await call('POST', '/mcp-credentials', {
      key: 'search',
      displayName: 'Search key',
      kind: 'api_key_header',
      headerName: 'X-Api-Key',
      secret: API_KEY_SECRET,
    });
    expect(headerKind.status, JSON.stringify(headerKind.body)).toBe(201);
    expect(headerKind.body).toMatchObject({ kind: 'api_key_header', headerName: 'X-Api-Key' });

    const list = await call('GET', '/mcp-credentials', undefined, { apiKey: await withScopes('credential:read_metadata') });
    expect(list.status).toBe(200);
    expect(list.body.data.map((entry: { key: string }) => entry.key)).toEqual(['crm', 'search']);
  });

  it('rotates to the next version and revokes for good', async () => {
    const created = await call('POST', '/mcp-credentials', { key: 'rotating', displayName: 'Rotating', kind: 'static_bearer', secret: 'first-secret-value' });
    const rotator = await withScopes('credential:rotate');
    const rotated = await call('POST', `/mcp-credentials/${created.body.id}/rotate`, { secret: ROTATED }, { apiKey: rotator });
    expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
    expect(rotated.body).toMatchObject({ id: created.body.id, credentialVersion: 2, lifecycle: 'active' });
    expect(rotated.body.credentialFingerprint).not.toBe(created.body.credentialFingerprint);

    const revoker = await withScopes('credential:revoke');
    const revoked = await call('DELETE', `/mcp-credentials/${created.body.id}`, undefined, { apiKey: revoker });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ lifecycle: 'revoked', credentialConfigured: false, credentialVersion: 2 });
    const [row] = await t.database.db.select().from(mcpCredentials).where(eq(mcpCredentials.id, created.body.id));
    expect(row!.credentialCiphertext).toBeNull();
    // Revoked stays revoked: rotation is a conflict, a second revoke changes nothing.
    const again = await call('POST', `/mcp-credentials/${created.body.id}/rotate`, { secret: 'another-secret' }, { apiKey: rotator });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('conflict');
    const twice = await call('DELETE', `/mcp-credentials/${created.body.id}`, undefined, { apiKey: revoker });
    expect(twice.body).toMatchObject({ lifecycle: 'revoked', revokedAt: revoked.body.revokedAt });
    expect((await call('DELETE', `/mcp-credentials/${randomUUID()}`, undefined, { apiKey: revoker })).status).toBe(404);
  });

  it('refuses bad input with 400 and its path, and duplicate keys with 409', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ key: 'Bad', displayName: 'x', kind: 'static_bearer', secret: 's' }, 'body.key'],
      [{ key: 'ok', displayName: 'x', kind: 'oauth', secret: 's' }, 'body.kind'],
      [{ key: 'ok', displayName: 'x', kind: 'static_bearer', headerName: 'X-Key', secret: 's' }, 'body.headerName'],
      [{ key: 'ok', displayName: 'x', kind: 'api_key_header', secret: 's' }, 'body.headerName'],
      [{ key: 'ok', displayName: 'x', kind: 'api_key_header', headerName: 'Host', secret: 's' }, 'body.headerName'],
      [{ key: 'ok', displayName: 'x', kind: 'api_key_header', headerName: 'Cookie', secret: 's' }, 'body.headerName'],
      [{ key: 'ok', displayName: 'x', kind: 'api_key_header', headerName: 'Content-Type', secret: 's' }, 'body.headerName'],
      [{ key: 'ok', displayName: 'x', kind: 'api_key_header', headerName: 'Connection', secret: 's' }, 'body.headerName'],
      [{ key: 'ok', displayName: 'x', kind: 'api_key_header', headerName: 'Transfer-Encoding', secret: 's' }, 'body.headerName'],
      [{ key: 'ok', displayName: 'x', kind: 'api_key_header', headerName: 'Mcp-Session-Id', secret: 's' }, 'body.headerName'],
      [{ key: 'ok', displayName: 'x', kind: 'api_key_header', headerName: ':authority', secret: 's' }, 'body.headerName'],
      [{ key: 'ok', displayName: 'x', kind: 'api_key_header', headerName: 'X Key', secret: 's' }, 'body.headerName'],
      [{ key: 'ok', displayName: 'x', kind: 'static_bearer', secret: 'has spaces inside' }, 'body.secret'],
      [{ key: 'ok', displayName: 'x', kind: 'static_bearer' }, 'body.secret'],
      [{ key: 'ok', displayName: 'x', kind: 'static_bearer', secret: 's', extra: true }, 'body.extra'],
    ];
    for (const [body, path] of cases) {
      const response = await call('POST', '/mcp-credentials', body);
      expect(response.status, `${JSON.stringify(body)} → ${JSON.stringify(response.body)}`).toBe(400);
      expect(response.body.error.details.path, JSON.stringify(body)).toBe(path);
      expect(JSON.stringify(response.body)).not.toContain('has spaces inside');
    }
    const duplicate = await call('POST', '/mcp-credentials', { key: 'crm', displayName: 'Again', kind: 'static_bearer', secret: 'other-secret' });
    expect(duplicate.status).toBe(409);
  });
});

describe('MCP servers', () => {
  it('creates immutable version 1 with an empty snapshot; https only outside development', async () => {
    const created = await call('POST', '/mcp-servers', {
      key: 'crm',
      displayName: 'CRM',
      endpointUrl: 'https://mcp.example.com/mcp',
      transport: 'streamable_http',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ key: 'crm', endpointUrl: 'https://mcp.example.com/mcp', transport: 'streamable_http', latestVersion: 1 });
    expect(created.body.versions).toEqual([
      { id: created.body.latestVersionId, serverId: created.body.id, version: 1, tools: [], discoveredAt: null, createdAt: expect.any(String) },
    ]);
    const sse = await call('POST', '/mcp-servers', {
      key: 'legacy',
      displayName: 'Legacy',
      endpointUrl: 'https://legacy.example.com/sse',
      transport: 'legacy_sse',
    });
    expect(sse.status).toBe(201);

    const reader = await withScopes('mcp:read');
    const list = await call('GET', '/mcp-servers', undefined, { apiKey: reader });
    expect(list.body.data.map((server: { key: string }) => server.key)).toEqual(['crm', 'legacy']);
    const versionRows = await t.database.db.select().from(mcpServerVersions).where(eq(mcpServerVersions.serverId, created.body.id));
    expect(versionRows).toHaveLength(1);

    for (const [body, path] of [
      [{ key: 'x1', displayName: 'x', endpointUrl: 'http://mcp.example.com/mcp', transport: 'streamable_http' }, 'body.endpointUrl'],
      [{ key: 'x2', displayName: 'x', endpointUrl: 'https://127.0.0.1/mcp', transport: 'streamable_http' }, 'body.endpointUrl'],
      [{ key: 'x3', displayName: 'x', endpointUrl: 'https://user:pw@mcp.example.com/', transport: 'streamable_http' }, 'body.endpointUrl'],
      [{ key: 'x4', displayName: 'x', endpointUrl: 'not a url', transport: 'streamable_http' }, 'body.endpointUrl'],
      [{ key: 'x5', displayName: 'x', endpointUrl: 'https://mcp.example.com/', transport: 'websocket' }, 'body.transport'],
      [{ key: 'x6', displayName: 'x', endpointUrl: 'https://mcp.example.com/?token=abc', transport: 'streamable_http' }, 'body.endpointUrl'],
      [{ key: 'x7', displayName: 'x', transport: 'streamable_http' }, 'body.endpointUrl'],
      [{ key: 'x8', displayName: 'x', endpointUrl: 'https://localhost/mcp', transport: 'streamable_http' }, 'body.endpointUrl'],
      [{ key: 'x9', displayName: 'x', endpointUrl: 'https://LOCALHOST:8443/mcp', transport: 'streamable_http' }, 'body.endpointUrl'],
      [{ key: 'x10', displayName: 'x', endpointUrl: 'https://foo.localhost/mcp', transport: 'legacy_sse' }, 'body.endpointUrl'],
      [{ key: 'x11', displayName: 'x', endpointUrl: 'https://localhost./mcp', transport: 'streamable_http' }, 'body.endpointUrl'],
      [{ key: 'x12', displayName: 'x', endpointUrl: 'https://[::1]/mcp', transport: 'streamable_http' }, 'body.endpointUrl'],
    ] as const) {
      const response = await call('POST', '/mcp-servers', body);
      expect(response.status, `${JSON.stringify(body)} → ${JSON.stringify(response.body)}`).toBe(400);
      expect(response.body.error.details.path).toBe(path);
    }
    expect(
      (await call('POST', '/mcp-servers', { key: 'crm', displayName: 'x', endpointUrl: 'https://other.example.com/', transport: 'legacy_sse' })).status,
    ).toBe(409);
  });

  it('replays an idempotent creation and stores one server', async () => {
    const body = { key: 'replayed', displayName: 'Replayed', endpointUrl: 'https://replayed.example.com/mcp', transport: 'streamable_http' };
    const first = await call('POST', '/mcp-servers', body, { idempotencyKey: 'mcp-server-once' });
    const again = await call('POST', '/mcp-servers', body, { idempotencyKey: 'mcp-server-once' });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    const list = await call('GET', '/mcp-servers');
    expect(list.body.data.filter((server: { key: string }) => server.key === 'replayed')).toHaveLength(1);
  });
});

describe('credential policies', () => {
  it('publishes versions per key; equal content answers the newest version', async () => {
    const credential = (await call('POST', '/mcp-credentials', { key: 'policy-cred', displayName: 'P', kind: 'static_bearer', secret: 'policy-secret-1' }))
      .body;
    const body = {
      key: 'crm-policy',
      displayName: 'CRM',
      credentialId: credential.id,
      exactOrigin: 'https://mcp.example.com',
      pathPrefix: '/mcp',
      timeoutMs: 10_000,
      maximumResponseBytes: 65_536,
    };
    const writer = await withScopes('credential:write');
    const first = await call('POST', '/mcp-credential-policies', body, { apiKey: writer });
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.body).toMatchObject({ ...body, version: 1, latestVersion: 1, active: true });
    const same = await call('POST', '/mcp-credential-policies', body, { apiKey: writer });
    expect(same.status).toBe(200);
    expect(same.body.id).toBe(first.body.id);
    const second = await call('POST', '/mcp-credential-policies', { ...body, timeoutMs: 20_000 }, { apiKey: writer });
    expect(second.status).toBe(201);
    expect(second.body).toMatchObject({ version: 2, latestVersion: 2, timeoutMs: 20_000 });

    const list = await call('GET', '/mcp-credential-policies', undefined, { apiKey: await withScopes('credential:read_metadata') });
    const versions = list.body.data.filter((entry: { key: string }) => entry.key === 'crm-policy');
    expect(versions.map((entry: { version: number; latestVersion: number }) => [entry.version, entry.latestVersion])).toEqual([
      [1, 2],
      [2, 2],
    ]);

    // A revoked credential makes its policies inactive.
    await call('DELETE', `/mcp-credentials/${credential.id}`);
    const after = await call('GET', '/mcp-credential-policies');
    expect(after.body.data.filter((entry: { key: string }) => entry.key === 'crm-policy').map((entry: { active: boolean }) => entry.active)).toEqual([
      false,
      false,
    ]);
  });

  it('refuses bad input with 400 and its path', async () => {
    const credential = (await call('POST', '/mcp-credentials', { key: 'bounds-cred', displayName: 'B', kind: 'static_bearer', secret: 'bounds-secret-1' }))
      .body;
    const revoked = (await call('POST', '/mcp-credentials', { key: 'gone-cred', displayName: 'G', kind: 'static_bearer', secret: 'gone-secret-1' })).body;
    await call('DELETE', `/mcp-credentials/${revoked.id}`);
    const good = {
      key: 'bounded',
      displayName: 'B',
      credentialId: credential.id,
      exactOrigin: 'https://mcp.example.com',
      pathPrefix: '/',
      timeoutMs: 1_000,
      maximumResponseBytes: 1_024,
    };
    expect((await call('POST', '/mcp-credential-policies', good)).status).toBe(201);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...good, timeoutMs: 999 }, 'body.timeoutMs'],
      [{ ...good, timeoutMs: 300_001 }, 'body.timeoutMs'],
      [{ ...good, timeoutMs: 1.5 }, 'body.timeoutMs'],
      [{ ...good, maximumResponseBytes: 1_023 }, 'body.maximumResponseBytes'],
      [{ ...good, maximumResponseBytes: 16 * 1024 * 1024 + 1 }, 'body.maximumResponseBytes'],
      [{ ...good, exactOrigin: 'https://mcp.example.com/mcp' }, 'body.exactOrigin'],
      [{ ...good, exactOrigin: 'http://mcp.example.com' }, 'body.exactOrigin'],
      [{ ...good, exactOrigin: 'mcp.example.com' }, 'body.exactOrigin'],
      [{ ...good, exactOrigin: 'https://localhost' }, 'body.exactOrigin'],
      [{ ...good, exactOrigin: 'https://api.localhost:8443' }, 'body.exactOrigin'],
      [{ ...good, exactOrigin: 'https://127.0.0.1' }, 'body.exactOrigin'],
      [{ ...good, exactOrigin: 'https://[fd00::1]' }, 'body.exactOrigin'],
      [{ ...good, pathPrefix: 'mcp' }, 'body.pathPrefix'],
      [{ ...good, pathPrefix: '/a/../b' }, 'body.pathPrefix'],
      [{ ...good, pathPrefix: '/a?b' }, 'body.pathPrefix'],
      [{ ...good, credentialId: 'nope' }, 'body.credentialId'],
      [{ ...good, credentialId: randomUUID() }, 'body.credentialId'],
      [{ ...good, credentialId: revoked.id }, 'body.credentialId'],
    ];
    for (const [body, path] of cases) {
      const response = await call('POST', '/mcp-credential-policies', body);
      expect(response.status, `${JSON.stringify(body)} → ${JSON.stringify(response.body)}`).toBe(400);
      expect(response.body.error.details.path, JSON.stringify(body)).toBe(path);
    }
  });
});

describe('toolsets', () => {
  it('needs tools of the pinned server version: version 1 has none to select', async () => {
    const server = (
      await call('POST', '/mcp-servers', { key: 'empty', displayName: 'Empty', endpointUrl: 'https://empty.example.com/mcp', transport: 'streamable_http' })
    ).body;
    const response = await call('POST', '/mcp-toolsets', {
      key: 'ts',
      displayName: 'TS',
      serverVersionId: server.latestVersionId,
      tools: [{ remoteToolName: 'echo', approval: 'never' }],
    });
    expect(response.status).toBe(400);
    expect(response.body.error.details.path).toBe('body.tools.0.remoteToolName');
    for (const [body, path] of [
      [{ key: 'ts', displayName: 'TS', serverVersionId: server.latestVersionId, tools: [] }, 'body.tools'],
      [{ key: 'ts', displayName: 'TS', serverVersionId: randomUUID(), tools: [{ remoteToolName: 'echo' }] }, 'body.serverVersionId'],
      [
        { key: 'ts', displayName: 'TS', serverVersionId: server.latestVersionId, tools: [{ remoteToolName: 'echo', approval: 'sometimes' }] },
        'body.tools.0.approval',
      ],
      [
        { key: 'ts', displayName: 'TS', serverVersionId: server.latestVersionId, tools: Array.from({ length: 65 }, (_, i) => ({ remoteToolName: `t${i}` })) },
        'body.tools',
      ],
      [{ key: 'ts', displayName: 'TS', serverVersionId: server.latestVersionId, tools: [{ remoteToolName: 'a' }, { remoteToolName: 'a' }] }, 'body.tools.1'],
    ] as const) {
      const bad = await call('POST', '/mcp-toolsets', body);
      expect(bad.status, `${JSON.stringify(body).slice(0, 200)} → ${JSON.stringify(bad.body)}`).toBe(400);
      expect(bad.body.error.details.path).toBe(path);
    }
  });
});

describe('scopes', () => {
  it('each route needs its own scope', async () => {
    const none = await withScopes('agent:read');
    const credential = (await call('POST', '/mcp-credentials', { key: 'scoped', displayName: 'S', kind: 'static_bearer', secret: 'scoped-secret-1' })).body;
    const server = (
      await call('POST', '/mcp-servers', { key: 'scoped', displayName: 'S', endpointUrl: 'https://scoped.example.com/mcp', transport: 'streamable_http' })
    ).body;
    const routes: Array<[string, string, unknown, string]> = [
      ['GET', '/mcp-servers', undefined, 'mcp:read'],
      ['POST', '/mcp-servers', { key: 'n', displayName: 'n', endpointUrl: 'https://n.example.com/', transport: 'streamable_http' }, 'mcp:write'],
      ['POST', `/mcp-servers/${server.id}/discover`, {}, 'mcp:discover'],
      ['GET', '/mcp-credentials', undefined, 'credential:read_metadata'],
      ['POST', '/mcp-credentials', { key: 'n', displayName: 'n', kind: 'static_bearer', secret: 's' }, 'credential:write'],
      ['POST', `/mcp-credentials/${credential.id}/rotate`, { secret: 's' }, 'credential:rotate'],
      ['DELETE', `/mcp-credentials/${credential.id}`, undefined, 'credential:revoke'],
      ['GET', '/mcp-credential-policies', undefined, 'credential:read_metadata'],
      ['POST', '/mcp-credential-policies', {}, 'credential:write'],
      ['GET', '/mcp-toolsets', undefined, 'mcp:read'],
      ['POST', '/mcp-toolsets', {}, 'mcp:write'],
    ];
    for (const [method, path, body, scope] of routes) {
      const refused = await call(method, path, body, { apiKey: none });
      expect(refused.status, `${method} ${path}`).toBe(403);
      expect(refused.body.error.message).toContain(scope);
    }
  });
});

describe('secrets', () => {
  it('never appear in responses, audit entries or logs', async () => {
    const audit = JSON.stringify(await t.database.db.select().from(auditEntries));
    expect(audit).toContain('mcp_credential.created');
    expect(audit).toContain('mcp_credential.rotated');
    expect(audit).toContain('mcp_credential.revoked');
    expect(audit).toContain('mcp_server.created');
    expect(audit).toContain('mcp_credential_policy.published');
    for (const secret of [SECRET, ROTATED, API_KEY_SECRET, 'policy-secret-1', 'scoped-secret-1']) {
      for (const text of responseTexts) expect(text).not.toContain(secret);
      expect(audit).not.toContain(secret);
      for (const line of t.logLines) expect(line).not.toContain(secret);
    }
  });
});
