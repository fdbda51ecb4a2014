import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
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
  t = await createTestApp();
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
    expect(first).toMatchObject({ key: 'primary', providerType: 's3', bucket, prefix: 'svc/data', forcePathStyle: true, isDefault: true, credentialConfigured: true, credentialVersion: 1 });
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
    expect(list.body.data.map((p: any) => [p.key, p.isDefault])).toEqual([['primary', false], ['secondary', true]]);
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
    expect(runFiles.body.objects.map((o: any) => [o.key, o.sizeBytes])).toEqual([['run-files/r1/a.txt', 5], ['run-files/r1/b.txt', 6]]);

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
    const rotated = await call('PUT', `${base()}/${first.id}/credential`, { accessKeyId: 'AKIASVCROTATED000002', secretAccessKey: 'rotated-secret-value', sessionToken: 'session-token-value' });
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
