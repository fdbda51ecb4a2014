import { systemContext } from '../../services/kernel/service-context.ts';
import { createHash } from 'node:crypto';
import { CreateBucketCommand, GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { attachments, auditEntries, messages, productEvents, runs } from '../../db/schema/index.ts';
import { createTestApp, type TestApp } from '../support/app.ts';

/**
 * Files on session and turn bodies (spec 2 "File input item"): every rule refused before a run
 * is queued, bytes stored in real S3 (moto) with a server-computed SHA-256, and only metadata in
 * transcripts — never bytes in the database, events or audit.
 */

let t: TestApp;
let projectId: string;
let admin: string;
let s3: S3Client;
const bucket = `svc-files-${crypto.randomUUID().slice(0, 8)}`;
let readerAgent: string;
let shellAgent: string;
let plainAgent: string;

const b64 = (text: string | Buffer) => Buffer.from(text).toString('base64');
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

beforeAll(async () => {
  const server = inject('s3');
  s3 = new S3Client({
    endpoint: server.endpoint,
    region: server.region,
    forcePathStyle: true,
    credentials: { accessKeyId: server.accessKeyId, secretAccessKey: server.secretAccessKey },
  });
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  // moto listens on 127.0.0.1: only a server that allows private networks may use it.
  t = await createTestApp({ env: { SVC_OUTBOUND_ALLOW_PRIVATE_NETWORK: 'true' } });
  projectId = (await t.login()).context.project.id;
  admin = (await t.createApiKey(['*'])).secret;
  const provider = await call('POST', '/model-providers', { key: 'gw', displayName: 'Gateway', providerType: 'gateway', apiKey: 'sk-or-v1-test' });
  await call('POST', '/model-presets', { key: 'p', displayName: 'P', providerId: provider.body.id, model: 'gateway/@preset/fast', routing: {} });
  const sandboxProvider = await call('POST', '/sandbox-providers', { key: 'local', displayName: 'Local', providerType: 'sandbox_vendor', apiKey: 'local-key' });
  expect(sandboxProvider.status).toBe(201);
  const snapshotId = (await call('GET', `/sandbox-providers/${sandboxProvider.body.id}/snapshots`)).body.data[0].id;
  const agent = async (capabilities: string[] | null) => {
    const sandbox = capabilities ? { enabled: true, provider: 'local', snapshotId, network: 'none', capabilities } : undefined;
    const created = await call('POST', '/agents', {
      name: `Files ${Math.random()}`,
      initialConfig: { systemPrompt: 'Read files.', modelPreset: 'p', limits: { maxTurns: 4 }, ...(sandbox ? { sandbox } : {}) },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body.id as string;
  };
  readerAgent = await agent(['filesystem_read']);
  shellAgent = await agent(['shell']);
  plainAgent = await agent(null);
});
afterAll(async () => {
  s3?.destroy();
  await t?.close();
});

async function call(method: string, urlPath: string, body?: unknown) {
  const response = await t.request(method, `/v1/projects/${projectId}${urlPath}`, { apiKey: admin, body });
  return { status: response.status, body: await response.json() };
}

async function rowCounts() {
  const [r] = await t.database.db.select({ n: count() }).from(runs);
  const [a] = await t.database.db.select({ n: count() }).from(attachments);
  return { runs: r!.n, attachments: a!.n };
}

describe('attachments', () => {
  it('needs a default storage provider', async () => {
    const before = await rowCounts();
    const response = await call('POST', '/sessions', {
      agentId: readerAgent,
      initialMessage: 'Read it',
      files: [{ name: 'a.txt', contentType: 'text/plain', dataBase64: b64('alpha') }],
    });
    expect(response.status).toBe(400);
    expect(response.body.error.message).toMatch(/default storage provider/);
    expect(await rowCounts()).toEqual(before);
    const server = inject('s3');
    const storage = await call('POST', '/storage-providers', {
      key: 'files',
      displayName: 'Files',
      providerType: 's3',
      endpoint: server.endpoint,
      region: server.region,
      bucket,
      prefix: null,
      forcePathStyle: true,
      accessKeyId: server.accessKeyId,
      secretAccessKey: server.secretAccessKey,
    });
    expect(storage.status).toBe(201);
  });

  it('stores files in S3 and shows only metadata', async () => {
    const text = 'line one\nline two\n';
    const response = await call('POST', '/sessions', {
      agentId: shellAgent,
      initialMessage: 'Look at these.',
      files: [
        { name: 'notes.txt', contentType: 'text/plain; charset=utf-8', dataBase64: b64(text) },
        { name: 'pixel.png', contentType: 'application/octet-stream', dataBase64: b64(PNG) },
      ],
    });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    const runId = response.body.latestRunId;
    const rows = await t.database.db.select().from(attachments).where(eq(attachments.runId, runId));
    expect(rows.map((row) => [row.filename, row.contentType, row.fileClass, row.sizeBytes])).toEqual([
      ['notes.txt', 'text/plain', 'text', text.length],
      ['pixel.png', 'image/png', 'binary', PNG.length],
    ]);
    expect(rows[0]!.sha256).toBe(createHash('sha256').update(text).digest('hex'));
    const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: rows[1]!.objectKey }));
    expect(Buffer.from(await object.Body!.transformToByteArray()).equals(PNG)).toBe(true);
    // Content-addressed: the key is the SHA-256 of the bytes, under the project's tenant path.
    expect(rows[1]!.objectKey).toBe(`orgs/${rows[1]!.organizationId}/projects/${projectId}/run-files/${createHash('sha256').update(PNG).digest('hex')}`);

    const runMessages = await call('GET', `/runs/${runId}/messages`);
    const [user] = runMessages.body.data;
    expect(user.text).toBe('Look at these.');
    expect(user.attachments).toEqual([
      { id: rows[0]!.id, filename: 'notes.txt', contentType: 'text/plain', sizeBytes: text.length, sha256: rows[0]!.sha256, createdAt: expect.any(String) },
      { id: rows[1]!.id, filename: 'pixel.png', contentType: 'image/png', sizeBytes: PNG.length, sha256: rows[1]!.sha256, createdAt: expect.any(String) },
    ]);
    const detail = await call('GET', `/sessions/${response.body.id}`);
    expect(detail.body.transcript[0].attachments).toHaveLength(2);
    // The listing shows the object under its logical key.
    const listing = await call('GET', `/storage-providers/${rows[0]!.storageProviderId}/objects?prefix=run-files/`);
    expect(listing.body.objects.map((o: any) => o.key)).toEqual(expect.arrayContaining([`run-files/${rows[0]!.sha256}`, `run-files/${rows[1]!.sha256}`]));

    // No bytes anywhere in the database: messages, runs, events, audit.
    const dump = (rows: unknown) => JSON.stringify(rows, (_key, value) => (typeof value === 'bigint' ? value.toString() : value));
    const dumps = [
      dump(await t.database.db.select().from(messages)),
      dump(await t.database.db.select().from(runs)),
      dump(await t.database.db.select().from(productEvents)),
      dump(await t.database.db.select().from(auditEntries)),
    ].join('\n');
    expect(dumps).not.toContain(b64(text));
    expect(dumps).not.toContain('line two');
    expect(dumps).not.toContain(b64(PNG));
  });

  it('accepts a files-only turn with a neutral message', async () => {
    const session = await call('POST', '/sessions', {
      agentId: readerAgent,
      files: [{ name: 'data.json', contentType: 'application/json', dataBase64: b64('{"a":1}') }],
    });
    expect(session.status).toBe(201);
    const messagesOfRun = await call('GET', `/runs/${session.body.latestRunId}/messages`);
    expect(messagesOfRun.body.data[0]).toMatchObject({ text: 'Attached files.', attachments: [{ filename: 'data.json', contentType: 'application/json' }] });
  });

  it('refuses every file rule before a run is queued', async () => {
    const ok = { name: 'a.txt', contentType: 'text/plain', dataBase64: b64('a') };
    const eight = Array.from({ length: 8 }, (_, i) => ({ ...ok, name: `f${i}.txt` }));
    const cases: Array<[string, string, unknown, string]> = [
      ['no sandbox on the version', plainAgent, [ok], 'body.files'],
      ['binary file with filesystem_read only', readerAgent, [{ name: 'p.png', contentType: 'image/png', dataBase64: b64(PNG) }], 'body.files'],
      ['nine files', readerAgent, [...eight, { ...ok, name: 'f9.txt' }], 'body.files'],
      ['a path as the name', readerAgent, [{ ...ok, name: 'dir/a.txt' }], 'body.files.0.name'],
      ['a dot-dot name', readerAgent, [{ ...ok, name: '..' }], 'body.files.0.name'],
      ['duplicate names', readerAgent, [ok, { ...ok, name: 'A.TXT' }], 'body.files.1.name'],
      ['type and extension disagree', readerAgent, [{ ...ok, contentType: 'image/png' }], 'body.files.0.contentType'],
      ['an archive', shellAgent, [{ name: 'a.zip', contentType: 'application/zip', dataBase64: b64('PK') }], 'body.files.0.name'],
      ['audio', shellAgent, [{ name: 'a.mp3', contentType: 'audio/mpeg', dataBase64: b64('ID3') }], 'body.files.0.name'],
      ['an executable', shellAgent, [{ name: 'a.exe', contentType: 'application/octet-stream', dataBase64: b64('MZ') }], 'body.files.0.name'],
      ['non-canonical base64', readerAgent, [{ ...ok, dataBase64: 'YR==' }], 'body.files.0.dataBase64'],
      ['base64 with whitespace', readerAgent, [{ ...ok, dataBase64: 'YW Jj' }], 'body.files.0.dataBase64'],
      ['a data URL', readerAgent, [{ ...ok, dataBase64: `data:text/plain;base64,${b64('a')}` }], 'body.files.0.dataBase64'],
      ['an unknown field', readerAgent, [{ ...ok, sha256: 'x' }], 'body.files.0'],
      // 13,981,016 base64 characters decode to 10,485,762 bytes: just over 10 MiB.
      ['a file over 10 MiB', shellAgent, [{ name: 'big.pdf', contentType: 'application/pdf', dataBase64: 'A'.repeat(13_981_016) }], 'body.files.0.dataBase64'],
      // Three files of 7,340,034 bytes each: every one under 10 MiB, together over 20 MiB.
      [
        'files over 20 MiB together',
        shellAgent,
        [0, 1, 2].map((i) => ({ name: `b${i}.pdf`, contentType: 'application/pdf', dataBase64: 'A'.repeat(9_786_712) })),
        'body.files',
      ],
      ['files not an array', readerAgent, { name: 'a.txt' }, 'body.files'],
    ];
    const before = await rowCounts();
    for (const [label, agentId, files, path] of cases) {
      const response = await call('POST', '/sessions', { agentId, initialMessage: 'Hi', files });
      expect(response.status, label).toBe(400);
      expect(response.body.error.code, label).toBe('bad_request');
      expect(String(response.body.error.details?.path), label).toContain(path);
      if (label.includes('MiB')) expect(response.body.error.message, label).toMatch(/MiB/);
      expect(JSON.stringify(response.body), label).not.toContain(b64(PNG));
    }
    expect(await rowCounts()).toEqual(before);
  }, 120_000);

  it('needs credential encryption on the server', async () => {
    const { uploadAttachments } = await import('../../services/runtime/attachments/index.ts');
    const { createKeyring } = await import('../../services/kernel/credentials/index.ts');
    // The first run belongs to a version whose sandbox takes text files: only encryption is missing.
    const [run] = await t.database.db.select().from(runs).orderBy(runs.createdAt).limit(1);
    const ctx = systemContext({ db: t.database.db, logger: t.deps.logger, clock: t.deps.clock });
    const files = [{ name: 'a.txt', contentType: 'text/plain', fileClass: 'text' as const, sizeBytes: 1, dataBase64: b64('a') }];
    await expect(
      uploadAttachments(ctx, {
        files,
        organizationId: run!.organizationId,
        projectId: run!.projectId,
        agentVersionId: run!.agentVersionId,
        keyring: createKeyring(null),
        storagePolicy: t.deps.storagePolicy,
      }),
    ).rejects.toMatchObject({ code: 'bad_request', message: expect.stringMatching(/credential encryption/) });
  });

  it('takes files on follow-up turns too', async () => {
    const session = await call('POST', '/sessions', { agentId: readerAgent, initialMessage: 'Hi' });
    await t.database.db.update(runs).set({ state: 'completed', settledAt: new Date() }).where(eq(runs.id, session.body.latestRunId));
    const { sessions } = await import('../../db/schema/index.ts');
    await t.database.db.update(sessions).set({ status: 'completed' }).where(eq(sessions.id, session.body.id));
    const bad = await call('POST', `/sessions/${session.body.id}/runs`, { files: [{ name: 'x.png', contentType: 'image/png', dataBase64: b64(PNG) }] });
    expect(bad.status).toBe(400);
    const turn = await call('POST', `/sessions/${session.body.id}/runs`, {
      message: 'And this',
      files: [{ name: 'more.md', contentType: 'text/markdown', dataBase64: b64('# More') }],
    });
    expect(turn.status, JSON.stringify(turn.body)).toBe(202);
    const rows = await t.database.db.select().from(attachments).where(eq(attachments.runId, turn.body.id));
    expect(rows.map((row) => row.filename)).toEqual(['more.md']);
  });
});

describe('standalone uploads', () => {
  it('stores a file once; turns name it by id beside inline files; reads, downloads and deletes it', async () => {
    const text = 'uploaded once\n';
    const created = await call('POST', '/uploads', { name: 'report.txt', contentType: 'text/plain', dataBase64: b64(text) });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      organizationId: expect.any(String),
      projectId,
      name: 'report.txt',
      contentType: 'text/plain',
      sizeBytes: text.length,
      sha256: createHash('sha256').update(text).digest('hex'),
      createdAt: expect.any(String),
      expiresAt: null,
    });
    const uploadId = created.body.id as string;
    expect((await call('GET', `/uploads/${uploadId}`)).body).toEqual(created.body);
    expect((await call('GET', '/uploads')).body.data.map((item: { id: string }) => item.id)).toContain(uploadId);
    const download = await t.request('GET', `/v1/projects/${projectId}/uploads/${uploadId}/content`, { apiKey: admin });
    expect(download.status).toBe(200);
    expect(download.headers.get('content-disposition')).toContain('report.txt');
    expect(await download.text()).toBe(text);

    const turn = await call('POST', '/sessions', {
      agentId: readerAgent,
      initialMessage: 'Read both',
      files: [{ uploadId }, { name: 'inline.md', contentType: 'text/markdown', dataBase64: b64('# Inline') }],
    });
    expect(turn.status, JSON.stringify(turn.body)).toBe(201);
    const rows = await t.database.db.select().from(attachments).where(eq(attachments.runId, turn.body.latestRunId));
    expect(rows.map((row) => [row.position, row.filename, row.sha256])).toEqual([
      [0, 'report.txt', created.body.sha256],
      [1, 'inline.md', createHash('sha256').update('# Inline').digest('hex')],
    ]);

    // Rules across the resolved files, and the sandbox rule of the version that receives them.
    const clash = await call('POST', '/sessions', {
      agentId: readerAgent,
      initialMessage: 'x',
      files: [{ name: 'REPORT.txt', contentType: 'text/plain', dataBase64: b64('x') }, { uploadId }],
    });
    expect(clash).toMatchObject({ status: 400, body: { error: { details: { path: 'body.files.1' } } } });
    const png = await call('POST', '/uploads', { name: 'pixel.png', contentType: 'image/png', dataBase64: b64(PNG) });
    expect((await call('POST', '/sessions', { agentId: readerAgent, initialMessage: 'x', files: [{ uploadId: png.body.id }] })).status).toBe(400);
    expect((await call('POST', '/sessions', { agentId: plainAgent, initialMessage: 'x', files: [{ uploadId }] })).status).toBe(400);
    const unknown = await call('POST', '/sessions', { agentId: readerAgent, initialMessage: 'x', files: [{ uploadId: crypto.randomUUID() }] });
    expect(unknown).toMatchObject({ status: 400, body: { error: { details: { path: 'body.files.0.uploadId' } } } });
    expect((await call('POST', '/sessions', { agentId: readerAgent, initialMessage: 'x', files: [{ uploadId, name: 'x.txt' }] })).status).toBe(400);

    // Bad uploads: the file rules, and lifetimes outside one hour to 90 days.
    expect((await call('POST', '/uploads', { name: 'tool.exe', contentType: 'application/octet-stream', dataBase64: b64('MZ') })).status).toBe(400);
    expect((await call('POST', '/uploads', { name: 'a.txt', contentType: 'text/plain', dataBase64: b64('a'), expiresInSeconds: 60 })).status).toBe(400);
    const expiring = await call('POST', '/uploads', { name: 'soon.txt', contentType: 'text/plain', dataBase64: b64('soon'), expiresInSeconds: 3600 });
    expect(Date.parse(expiring.body.expiresAt) - Date.parse(expiring.body.createdAt)).toBe(3_600_000);
    const { uploads } = await import('../../db/schema/index.ts');
    await t.database.db
      .update(uploads)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(uploads.id, expiring.body.id));
    expect((await call('GET', `/uploads/${expiring.body.id}`)).status).toBe(404);

    expect(await call('DELETE', `/uploads/${uploadId}`)).toEqual({ status: 200, body: { id: uploadId, deleted: true } });
    expect((await call('GET', `/uploads/${uploadId}`)).status).toBe(404);
    expect((await call('POST', '/sessions', { agentId: readerAgent, initialMessage: 'x', files: [{ uploadId }] })).status).toBe(400);
    // The turn that attached it keeps its copy.
    expect(await t.database.db.select().from(attachments).where(eq(attachments.runId, turn.body.latestRunId))).toHaveLength(2);
  });
});
