import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSettings } from '../../config/settings.ts';
import { BUILT_IN_SNAPSHOT } from '../../domain/sandbox/snapshot-registry.ts';
import { loadSnapshotRegistry } from '../../services/configuration/sandbox-providers/index.ts';
import { createTestApp, type TestApp } from '../support/app.ts';

/**
 * Sandbox provider connections (spec 2 "Sandbox providers") and the publication rules of an
 * enabled sandbox (spec 1 "Sandbox policy"), with a snapshot registry file.
 */

let t: TestApp;
let projectId: string;
let admin: string;
const registryDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-snapshots-'));
const registryFile = path.join(registryDir, 'snapshots.json');
const activeId = '1f0e5a3c-0b8e-4c61-9d55-0a6d6f0e7a11';
const pendingId = '2c1b7d4e-5f60-4a71-8b92-a3b4c5d6e7f8';
let responseTexts: string[] = [];
const API_KEY = 'sbx-live-key-0123456789';

const snapshot = (id: string, state: string, name: string) => ({
  id,
  name,
  state,
  image: `${name} image`,
  resource: { cpu: 2, memoryMb: 4096, diskMb: 2048 },
  region: 'local',
  class: 'standard',
  rootfs: { kind: 'directory', path: `/srv/rootfs/${name}` },
  createdAt: '2026-11-01T00:00:00.000Z',
  updatedAt: '2026-11-02T00:00:00.000Z',
});

beforeAll(async () => {
  fs.writeFileSync(registryFile, JSON.stringify([snapshot(activeId, 'active', 'debian-12'), snapshot(pendingId, 'pending', 'debian-13')]));
  t = await createTestApp({ env: { SVC_SANDBOX_SNAPSHOTS_FILE: registryFile } });
  projectId = (await t.login()).context.project.id;
  admin = (await t.createApiKey(['*'])).secret;
  responseTexts = t.recordResponseTexts();
});
afterAll(async () => {
  await t.close();
  fs.rmSync(registryDir, { recursive: true, force: true });
});

const base = () => `/v1/projects/${projectId}/sandbox-providers`;
async function call(method: string, urlPath: string, body?: unknown, apiKey = admin) {
  const response = await t.request(method, urlPath, { apiKey, body });
  return { status: response.status, body: await response.json() };
}
const create = (body: Record<string, unknown> = {}) =>
  call('POST', base(), {
    key: 'local',
    displayName: 'Local sandboxes',
    providerType: 'sandbox_vendor',
    apiKey: API_KEY,
    target: null,
    restrictedEgress: { allowedDomains: [], allowedCidrs: [] },
    ...body,
  });

describe('sandbox provider connections', () => {
  let providerId: string;

  it('creates a connection with safe metadata only', async () => {
    const created = await create({
      restrictedEgress: { allowedDomains: ['API.Example.com', '*.example.org'], allowedCidrs: ['8.8.8.0/24', '2606:4700::/32'] },
    });
    expect(created.status).toBe(201);
    providerId = created.body.id;
    expect(created.body).toMatchObject({
      key: 'local',
      displayName: 'Local sandboxes',
      providerType: 'sandbox_vendor',
      target: null,
      restrictedEgress: { allowedDomains: ['api.example.com', '*.example.org'], allowedCidrs: ['8.8.8.0/24', '2606:4700::/32'] },
      credentialConfigured: true,
      credentialVersion: 1,
    });
    expect(created.body.credentialFingerprint).toMatch(/^[0-9a-f]{12}$/);
    expect(JSON.stringify(created.body)).not.toContain(API_KEY);
    expect((await create()).status).toBe(409);
    const listed = await call('GET', base());
    expect(listed.body.data.map((p: any) => p.id)).toEqual([providerId]);
  });

  it('refuses malformed connections', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ providerType: 'vendor_a' }, 'providerType'],
      [{ apiKey: '' }, 'apiKey'],
      [{ key: 'Bad Key' }, 'key'],
      [{ target: '' }, 'target'],
      [{ restrictedEgress: { allowedDomains: ['exa mple.com'], allowedCidrs: [] } }, 'allowedDomains'],
      [{ restrictedEgress: { allowedDomains: ['*'], allowedCidrs: [] } }, 'allowedDomains'],
      [{ restrictedEgress: { allowedDomains: [], allowedCidrs: ['10.0.0.0/33'] } }, 'allowedCidrs'],
      [{ restrictedEgress: { allowedDomains: [], allowedCidrs: ['not-a-cidr'] } }, 'allowedCidrs'],
      [{ restrictedEgress: { allowedDomains: [] } }, 'allowedCidrs'],
    ];
    for (const [body, field] of cases) {
      const response = await create({ key: 'other', ...body });
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(String(response.body.error.details?.path), JSON.stringify(body)).toContain(field);
    }
  });

  it('refuses allowlist blocks that hold no public address, naming the entry, when created or configured (issue 28)', async () => {
    // This server does not allow private networks: only blocks with public addresses may be saved.
    const refused = [
      '127.0.0.1/32',
      '127.0.0.0/8',
      '::1/128',
      '0.0.0.0/8',
      '10.0.0.0/8',
      '192.168.0.0/16',
      '169.254.169.254/32',
      'fd00::/8',
      'fe80::/10',
      '::ffff:127.0.0.1/128',
      '203.0.113.0/24',
    ];
    for (const cidr of refused) {
      const response = await create({ key: 'other', restrictedEgress: { allowedDomains: [], allowedCidrs: ['8.8.8.0/24', cidr] } });
      expect(response.status, cidr).toBe(400);
      expect(response.body.error, cidr).toMatchObject({
        code: 'bad_request',
        details: { path: 'restrictedEgress.allowedCidrs.1' },
        message: expect.stringContaining(`"${ipaddrCanonical(cidr)}"`),
      });
      const configured = await call('PUT', `${base()}/${providerId}/configuration`, {
        target: null,
        restrictedEgress: { allowedDomains: [], allowedCidrs: [cidr] },
      });
      expect(configured.status, cidr).toBe(400);
      expect(configured.body.error.details.path).toBe('restrictedEgress.allowedCidrs.0');
    }
    // Nothing was written by the refusals.
    expect((await call('GET', base())).body.data.map((p: any) => p.key)).toEqual(['local']);
    expect((await call('GET', base())).body.data[0].restrictedEgress.allowedCidrs).toEqual(['8.8.8.0/24', '2606:4700::/32']);
    // A wide block holds public addresses: accepted (the proxy still refuses every non-public one).
    const wide = await call('PUT', `${base()}/${providerId}/configuration`, {
      target: null,
      restrictedEgress: { allowedDomains: [], allowedCidrs: ['0.0.0.0/0', '::/0'] },
    });
    expect(wide.status).toBe(200);
    expect(wide.body.restrictedEgress.allowedCidrs).toEqual(['0.0.0.0/0', '::/0']);
  });

  it('rotates the credential and replaces the configuration', async () => {
    const rotated = await call('PUT', `${base()}/${providerId}/credential`, { apiKey: 'sbx-rotated-key-999' });
    expect(rotated.body.credentialVersion).toBe(2);
    const configured = await call('PUT', `${base()}/${providerId}/configuration`, {
      target: 'eu-west',
      restrictedEgress: { allowedDomains: [], allowedCidrs: [] },
    });
    expect(configured.body).toMatchObject({ target: 'eu-west', restrictedEgress: { allowedDomains: [], allowedCidrs: [] }, credentialVersion: 2 });
    expect((await call('PUT', `${base()}/${providerId}/configuration`, { target: 'x' })).status).toBe(400);
    expect((await call('PUT', `${base()}/${crypto.randomUUID()}/credential`, { apiKey: 'k' })).status).toBe(404);
  });

  it('lists snapshots without root filesystems; available only when active', async () => {
    const snapshots = await call('GET', `${base()}/${providerId}/snapshots`);
    expect(snapshots.status).toBe(200);
    expect(snapshots.body.data).toEqual([
      expect.objectContaining({
        id: activeId,
        name: 'debian-12',
        state: 'active',
        available: true,
        image: 'debian-12 image',
        resource: { cpu: 2, memoryMb: 4096, diskMb: 2048 },
        region: 'local',
        class: 'standard',
      }),
      expect.objectContaining({ id: pendingId, state: 'pending', available: false }),
    ]);
    expect(JSON.stringify(snapshots.body)).not.toContain('/srv/rootfs');
    expect((await call('GET', `${base()}/${crypto.randomUUID()}/snapshots`)).status).toBe(404);
  });

  it('checks an enabled sandbox at publication', async () => {
    // Model preset checks come first; give the project a preset so only the sandbox can fail.
    const provider = await call('POST', `/v1/projects/${projectId}/model-providers`, {
      key: 'gw',
      displayName: 'Gateway',
      providerType: 'gateway',
      apiKey: 'sk-or-v1-test',
    });
    expect(provider.status).toBe(201);
    const created = await call('POST', `/v1/projects/${projectId}/model-presets`, {
      key: 'p',
      displayName: 'P',
      providerId: provider.body.id,
      model: 'gateway/@preset/fast',
      routing: {},
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const agent = (sandbox: Record<string, unknown>) =>
      call('POST', `/v1/projects/${projectId}/agents`, {
        name: `Sandboxed ${Math.random()}`,
        initialConfig: { systemPrompt: 'Work in the sandbox.', modelPreset: 'p', limits: { maxTurns: 4 }, sandbox },
      });
    const sandbox = { enabled: true, provider: 'local', snapshotId: activeId, network: 'none', capabilities: ['filesystem_read', 'shell'] };

    const unknown = await agent({ ...sandbox, provider: 'nope' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details.path).toBe('body.initialConfig.sandbox.provider');
    const pending = await agent({ ...sandbox, snapshotId: pendingId });
    expect(pending.body.error.details.path).toBe('body.initialConfig.sandbox.snapshotId');
    const unregistered = await agent({ ...sandbox, snapshotId: crypto.randomUUID() });
    expect(unregistered.body.error.details.path).toBe('body.initialConfig.sandbox.snapshotId');
    const restricted = await agent({ ...sandbox, network: 'restricted' });
    expect(restricted.status).toBe(400);
    expect(restricted.body.error.details.path).toBe('body.initialConfig.sandbox.network');

    expect((await agent(sandbox)).status).toBe(201);
    // The allowlist is connection configuration: once it names a domain, restricted is accepted.
    await call('PUT', `${base()}/${providerId}/configuration`, { target: null, restrictedEgress: { allowedDomains: ['api.example.com'], allowedCidrs: [] } });
    const allowed = await agent({ ...sandbox, network: 'restricted' });
    expect(allowed.status).toBe(201);
    expect(allowed.body.versions?.[0]?.config?.sandbox ?? allowed.body.sandbox).toMatchObject({ network: 'restricted', provider: 'local' });
    expect(JSON.stringify(allowed.body)).not.toContain('api.example.com');
  });

  it('never shows the API key', () => {
    const everything = [...responseTexts, ...t.logLines].join('\n');
    expect(everything).not.toContain(API_KEY);
    expect(everything).not.toContain('sbx-rotated-key-999');
  });
});

describe('snapshot registry setting', () => {
  it('defaults to the built-in host /usr snapshot and refuses a bad file naming the entry', () => {
    expect(loadSnapshotRegistry(undefined)).toEqual([BUILT_IN_SNAPSHOT]);
    const bad = path.join(registryDir, 'bad.json');
    fs.writeFileSync(bad, JSON.stringify([{ ...snapshot(activeId, 'active', 'x'), resource: { cpu: 0, memoryMb: 1, diskMb: 1 } }]));
    expect(() => loadSnapshotRegistry(bad)).toThrow(/0\.resource\.cpu/);
    fs.writeFileSync(bad, '{not json');
    expect(() => loadSnapshotRegistry(bad)).toThrow(/not valid JSON/);
    expect(() => loadSnapshotRegistry(path.join(registryDir, 'missing.json'))).toThrow(/cannot be read \(ENOENT\)/);
    expect(parseSettings({ SVC_SANDBOX_SNAPSHOTS_FILE: bad }).sandbox).toEqual({ driver: 'local', snapshotsFile: bad });
    expect(() => parseSettings({ SVC_SANDBOX_DRIVER: 'firecracker' })).toThrow(/SVC_SANDBOX_DRIVER/);
  });
});

/** The spelling the API stores a block in (it normalizes entries). */
function ipaddrCanonical(cidr: string): string {
  return cidr === '::ffff:127.0.0.1/128' ? '::ffff:7f00:1/128' : cidr;
}
