import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CreateBucketCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { storageProviders } from '../../db/schema/index.ts';
import { s3ClientFor } from '../../services/configuration/storage-providers/index.ts';
import { createTestApp, type TestApp } from '../support/app.ts';

/**
 * Object-storage connections (spec 2 "Storage providers") against a real S3-compatible server
 * (moto, started by the test setup): defaults, rotation, and the one-level object listing with
 * logical keys that hide bucket, provider prefix and tenant path.
 */

let t: TestApp;
let projectId: string;
let organizationId: string;
let admin: string;
let s3: S3Client;
const bucket = `svc-test-${crypto.randomUUID().slice(0, 8)}`;
let responseTexts: string[] = [];
const SECRET = 'svc-storage-secret-5f1c9a';

beforeAll(async () => {
  const server = inject('s3');
  s3 = new S3Client({
    endpoint: server.endpoint,
    region: server.region,
    forcePathStyle: true,
    credentials: { accessKeyId: server.accessKeyId, secretAccessKey: server.secretAccessKey },
    requestChecksumCalculation: 'WHEN_REQUIRED',
  });
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  // moto listens on 127.0.0.1: only a server that allows private networks may use it.
  t = await createTestApp({ env: { SVC_OUTBOUND_ALLOW_PRIVATE_NETWORK: 'true' } });
  const { context } = await t.login();
  projectId = context.project.id;
  organizationId = context.organization.id;
  admin = (await t.createApiKey(['*'])).secret;
  responseTexts = t.recordResponseTexts();
});
afterAll(async () => {
  s3?.destroy();
  await t?.close();
});

const base = () => `/v1/projects/${projectId}/storage-providers`;
async function call(method: string, urlPath: string, body?: unknown) {
  const response = await t.request(method, urlPath, { apiKey: admin, body });
  return { status: response.status, body: await response.json() };
}
function connection(key: string, extra: Record<string, unknown> = {}) {
  const server = inject('s3');
  return {
    key,
    displayName: `Store ${key}`,
    providerType: 's3',
    endpoint: server.endpoint,
    region: server.region,
    bucket,
    prefix: 'svc/data',
    forcePathStyle: true,
    // moto accepts any key pair; unique ones let the last test look for them in every response.
    accessKeyId: 'AKIASVCTESTKEY000001',
    secretAccessKey: SECRET,
    ...extra,
  };
}

describe('storage provider connections', () => {
  let first: any;
  let second: any;

  it('makes the first connection the default even without setDefault', async () => {
    const created = await call('POST', base(), connection('primary', { setDefault: false }));
    expect(created.status).toBe(201);
    first = created.body;
    expect(first).toMatchObject({
      key: 'primary',
      providerType: 's3',
      bucket,
      prefix: 'svc/data',
      forcePathStyle: true,
      isDefault: true,
      credentialConfigured: true,
      credentialVersion: 1,
    });
    expect(first.credentialFingerprint).toMatch(/^[0-9a-f]{12}$/);
    const other = await call('POST', base(), connection('secondary', { prefix: 'other/' }));
    second = other.body;
    expect(second).toMatchObject({ isDefault: false, prefix: 'other' });
    expect((await call('POST', base(), connection('primary'))).status).toBe(409);
  });

  it('switches the default and moves it with setDefault', async () => {
    const switched = await call('PUT', `${base()}/${second.id}/default`);
    expect(switched.body.isDefault).toBe(true);
    const list = await call('GET', base());
    expect(list.body.data.map((p: any) => [p.key, p.isDefault])).toEqual([
      ['primary', false],
      ['secondary', true],
    ]);
    expect((await call('PUT', `${base()}/${second.id}/default`)).body.isDefault).toBe(true);
    const third = await call('POST', base(), connection('third', { setDefault: true }));
    expect(third.body.isDefault).toBe(true);
    const after = await call('GET', base());
    expect(after.body.data.filter((p: any) => p.isDefault).map((p: any) => p.key)).toEqual(['third']);
    await call('PUT', `${base()}/${first.id}/default`);
  });

  it('refuses malformed connections', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ providerType: 'gcs' }, 'providerType'],
      [{ endpoint: 'ftp://store.example.com' }, 'endpoint'],
      [{ endpoint: 'https://user:pw@store.example.com' }, 'endpoint'],
      [{ bucket: 'Upper_Case' }, 'bucket'],
      [{ bucket: '192.168.1.1' }, 'bucket'],
      [{ prefix: '../escape' }, 'prefix'],
      [{ prefix: '/absolute' }, 'prefix'],
      [{ prefix: 'a//b' }, 'prefix'],
      [{ region: 'US East' }, 'region'],
      [{ accessKeyId: '' }, 'accessKeyId'],
      [{ secretAccessKey: 'has space' }, 'secretAccessKey'],
      [{ forcePathStyle: 'yes' }, 'forcePathStyle'],
    ];
    for (const [body, field] of cases) {
      const response = await call('POST', base(), connection('bad', body));
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(String(response.body.error.details?.path), JSON.stringify(body)).toContain(field);
    }
  });

  it('lists one folder level with logical keys', async () => {
    const root = `svc/data/orgs/${organizationId}/projects/${projectId}/`;
    const put = (key: string, body: string) => s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
    await put(`${root}run-files/r1/a.txt`, 'alpha');
    await put(`${root}run-files/r1/b.txt`, 'bravo!');
    await put(`${root}run-files/r2/c.txt`, 'c');
    await put(`${root}workspace-backups/t1/1.tar`, 'tar');
    await put(`${root}top.json`, '{}');
    // Another tenant's object under the same connection prefix stays invisible.
    await put(`svc/data/orgs/${crypto.randomUUID()}/projects/${projectId}/run-files/secret.txt`, 'no');

    const top = await call('GET', `${base()}/${first.id}/objects`);
    expect(top.status).toBe(200);
    expect(top.body).toMatchObject({ prefix: '', folders: ['run-files/', 'workspace-backups/'], truncated: false });
    expect(top.body.objects).toEqual([{ key: 'top.json', sizeBytes: 2, lastModifiedAt: expect.any(String) }]);
    expect(top.body).not.toHaveProperty('cursor');

    const runFiles = await call('GET', `${base()}/${first.id}/objects?prefix=run-files/r1`);
    expect(runFiles.body.prefix).toBe('run-files/r1/');
    expect(runFiles.body.folders).toEqual([]);
    expect(runFiles.body.objects.map((o: any) => [o.key, o.sizeBytes])).toEqual([
      ['run-files/r1/a.txt', 5],
      ['run-files/r1/b.txt', 6],
    ]);

    const firstPage = await call('GET', `${base()}/${first.id}/objects?prefix=run-files/r1/&limit=1`);
    expect(firstPage.body).toMatchObject({ truncated: true, objects: [{ key: 'run-files/r1/a.txt' }] });
    expect(typeof firstPage.body.cursor).toBe('string');
    const nextPage = await call('GET', `${base()}/${first.id}/objects?prefix=run-files/r1/&limit=1&cursor=${encodeURIComponent(firstPage.body.cursor)}`);
    expect(nextPage.body).toMatchObject({ truncated: false, objects: [{ key: 'run-files/r1/b.txt' }] });
    const wrongPrefix = await call('GET', `${base()}/${first.id}/objects?prefix=run-files/r2/&cursor=${encodeURIComponent(firstPage.body.cursor)}`);
    expect(wrongPrefix.status).toBe(400);

    for (const bad of ['../x', '/abs', 'a//b', '%2e%2e/x']) {
      expect((await call('GET', `${base()}/${first.id}/objects?prefix=${bad}`)).status, bad).toBe(400);
    }
    for (const limit of ['0', '1001', 'x']) {
      expect((await call('GET', `${base()}/${first.id}/objects?limit=${limit}`)).status, limit).toBe(400);
    }
    expect(JSON.stringify(top.body) + JSON.stringify(runFiles.body)).not.toContain(bucket);
    expect(JSON.stringify(top.body)).not.toContain(organizationId);
  });

  it('rotates credentials; an unreachable bucket makes the listing a 409 without provider text', async () => {
    const rotated = await call('PUT', `${base()}/${first.id}/credential`, {
      accessKeyId: 'AKIASVCROTATED000002',
      secretAccessKey: 'rotated-secret-value',
      sessionToken: 'session-token-value',
    });
    expect(rotated.status).toBe(200);
    expect(rotated.body.credentialVersion).toBe(2);
    expect(rotated.body.credentialFingerprint).not.toBe(first.credentialFingerprint);
    expect(rotated.body).toMatchObject({ bucket, prefix: 'svc/data', isDefault: true });
    expect((await call('GET', `${base()}/${first.id}/objects`)).status).toBe(200);
    expect((await call('PUT', `${base()}/${first.id}/credential`, { accessKeyId: 'x' })).status).toBe(400);
    const missingBucket = await call('POST', base(), connection('nobucket', { bucket: 'svc-no-such-bucket' }));
    const listing = await call('GET', `${base()}/${missingBucket.body.id}/objects`);
    expect(listing.status).toBe(409);
    expect(listing.body.error.message).toContain('nobucket');
    expect(JSON.stringify(listing.body)).not.toMatch(/NoSuchBucket|AccessDenied/);
    expect((await call('GET', `${base()}/${crypto.randomUUID()}/objects`)).status).toBe(404);
  });

  it('never shows a secret', () => {
    const everything = [...responseTexts, ...t.logLines].join('\n');
    for (const secret of [SECRET, 'rotated-secret-value', 'session-token-value']) expect(everything).not.toContain(secret);
  });
});

/**
 * Issue 28 finding 5: storage endpoints follow the webhooks' address policy. Without the
 * private-network setting a literal non-public address (in any spelling) or `http://` is refused
 * when the connection is saved, and at every use the endpoint's host name is resolved, every
 * answer checked and the socket pinned to the checked address, so a name that resolves to this
 * machine is refused before any byte is sent. A local receiver counts what reaches it.
 */
describe('storage endpoints under the address policy', () => {
  let strict: TestApp;
  let strictKey: string;
  let strictProject: string;
  let receiver: Server;
  let port: number;
  let received = 0;

  beforeAll(async () => {
    receiver = createServer((_request, response) => {
      received += 1;
      response.writeHead(500).end();
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    port = (receiver.address() as AddressInfo).port;
    strict = await createTestApp();
    strictProject = (await strict.login()).context.project.id;
    strictKey = (await strict.createApiKey(['*'])).secret;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => receiver?.close(() => resolve()));
    await strict?.close();
  });

  const strictCall = async (method: string, urlPath: string, body?: unknown) => {
    const response = await strict.request(method, `/v1/projects/${strictProject}/storage-providers${urlPath}`, { apiKey: strictKey, body });
    return { status: response.status, body: await response.json() };
  };

  it('refuses literal non-public addresses, loopback names and http:// when the connection is saved', async () => {
    const endpoints = [
      `http://127.0.0.1:${port}/internal/admin/path`,
      `https://127.0.0.1:${port}`,
      'https://0x7f000001',
      'https://2130706433',
      'https://[::1]:9000',
      'https://[::ffff:127.0.0.1]',
      'https://10.1.2.3',
      'https://169.254.169.254',
      'https://localhost:9000',
      'http://store.example.com',
    ];
    for (const endpoint of endpoints) {
      const response = await strictCall('POST', '', connection(`blocked-${endpoints.indexOf(endpoint)}`, { endpoint }));
      expect(response.status, endpoint).toBe(400);
      expect(response.body.error.code).toBe('bad_request');
      expect(String(response.body.error.details?.path), endpoint).toContain('endpoint');
    }
    expect((await strictCall('GET', '')).body.data).toEqual([]);
    expect(received).toBe(0);
    // A public name and AWS's own endpoint (null) are fine.
    expect((await strictCall('POST', '', connection('public-name', { endpoint: 'https://store.example.com' }))).status).toBe(201);
    expect((await strictCall('POST', '', connection('aws', { endpoint: null }))).status).toBe(201);
  });

  it('refuses, at use, an endpoint whose name or address is not public, before any byte is sent', async () => {
    const created = await strictCall('POST', '', connection('drifted', { endpoint: 'https://store.example.com' }));
    expect(created.status).toBe(201);
    // A row saved before this rule (or a name whose answers changed) must still be refused when used.
    for (const endpoint of [`http://localhost:${port}`, `http://127.0.0.1:${port}`, `http://[::1]:${port}`]) {
      await strict.database.db.update(storageProviders).set({ endpoint }).where(eq(storageProviders.id, created.body.id));
      const listing = await strictCall('GET', `/${created.body.id}/objects`);
      expect(listing.status, endpoint).toBe(409);
      expect(listing.body.error.message, endpoint).toMatch(/drifted.*(loopback address)/);
      expect(JSON.stringify(listing.body)).not.toContain(SECRET);
    }
    expect(received).toBe(0);
  });

  it('checks every answer of the worker-side lookup and pins the socket to it', async () => {
    const created = await strictCall('POST', '', connection('rebinding', { endpoint: 'https://store.example.com' }));
    const [row] = await strict.database.db.select().from(storageProviders).where(eq(storageProviders.id, created.body.id));
    const rebinding = { ...row!, endpoint: `http://storage.test:${port}`, forcePathStyle: true };
    const lookup = async () => [{ address: '127.0.0.1', family: 4 as const }];
    const refused = s3ClientFor(rebinding, strict.deps.keyring, { allowPrivateNetwork: false, lookup });
    try {
      const error = await refused.send(new ListObjectsV2Command({ Bucket: bucket })).then(
        () => null,
        (caught: unknown) => caught as Error,
      );
      expect(error?.message).toBe('The storage endpoint is not allowed (resolves to a loopback address)');
    } finally {
      refused.destroy();
    }
    expect(received).toBe(0);
    // With private networks allowed the same name reaches the checked (pinned) address.
    const allowed = s3ClientFor(rebinding, strict.deps.keyring, { allowPrivateNetwork: true, lookup });
    try {
      await allowed.send(new ListObjectsV2Command({ Bucket: bucket })).catch(() => undefined);
    } finally {
      allowed.destroy();
    }
    expect(received).toBeGreaterThan(0);
  });
});

/**
 * Issue 45 finding 9: a caller who uploads files (`run:create`) may not read the storage
 * connection, so a storage failure under its upload names nothing of it — no key, bucket,
 * endpoint or prefix, nor why the address policy refused it — while the log line names the
 * connection for whoever runs it (services/configuration/storage-providers/storage-failure.ts).
 */
describe('storage failures under an upload', () => {
  const upload = { name: 'notes.txt', contentType: 'text/plain', dataBase64: Buffer.from('hello').toString('base64') };
  const configuration = (endpoint: string, missingBucket: string) => [
    'broken-store-key',
    missingBucket,
    endpoint,
    new URL(endpoint).host,
    'svc/tenant-prefix',
    'Broken Store Name',
  ];

  async function brokenApp(env: Record<string, string>) {
    const app = await createTestApp({ env });
    const project = (await app.login()).context.project.id;
    const owner = (await app.createApiKey(['*'])).secret;
    const uploader = (await app.createApiKey(['run:create'])).secret;
    return { app, project, owner, uploader };
  }

  it('names neither the key, the bucket, the endpoint nor the prefix when the bucket is missing', async () => {
    const { app, project, owner, uploader } = await brokenApp({ SVC_OUTBOUND_ALLOW_PRIVATE_NETWORK: 'true' });
    try {
      const missingBucket = `svc-missing-${crypto.randomUUID().slice(0, 8)}`;
      const endpoint = inject('s3').endpoint;
      const created = await app.request('POST', `/v1/projects/${project}/storage-providers`, {
        apiKey: owner,
        body: connection('broken-store-key', { bucket: missingBucket, prefix: 'svc/tenant-prefix', displayName: 'Broken Store Name' }),
      });
      expect(created.status).toBe(201);
      const providerId = (await created.json()).id as string;
      const refused = await app.request('POST', `/v1/projects/${project}/uploads`, { apiKey: uploader, body: upload });
      expect(refused.status).toBe(409);
      const text = await refused.text();
      expect(JSON.parse(text).error.code).toBe('conflict');
      for (const value of configuration(endpoint, missingBucket)) expect(text, value).not.toContain(value);
      expect(app.logLines.find((line) => line.includes('storage request failed'))).toContain(providerId);
    } finally {
      await app.close();
    }
  });

  it('names neither the endpoint nor the address policy’s reason when the endpoint is refused at use', async () => {
    const { app, project, owner, uploader } = await brokenApp({});
    try {
      const created = await app.request('POST', `/v1/projects/${project}/storage-providers`, {
        apiKey: owner,
        body: connection('broken-store-key', { endpoint: 'https://store.example.com', prefix: 'svc/tenant-prefix', displayName: 'Broken Store Name' }),
      });
      expect(created.status).toBe(201);
      const providerId = (await created.json()).id as string;
      const endpoint = 'http://127.0.0.1:9';
      await app.database.db.update(storageProviders).set({ endpoint }).where(eq(storageProviders.id, providerId));
      const refused = await app.request('POST', `/v1/projects/${project}/uploads`, { apiKey: uploader, body: upload });
      expect(refused.status).toBe(409);
      const text = await refused.text();
      for (const value of [...configuration(endpoint, bucket), 'loopback', 'not allowed']) expect(text, value).not.toContain(value);
      const logged = app.logLines.find((line) => line.includes('storage request failed'));
      expect(logged).toContain(providerId);
      expect(logged).toContain('loopback address');
    } finally {
      await app.close();
    }
  });
});
