import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { CreateBucketCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { attachments, runs, sessions } from '../../db/schema/index.ts';
import { tenantRoot } from '../../domain/storage/paths.ts';
import { authenticateApiKey } from '../../services/access/auth/index.ts';
import { startOrphanedUploadSweeper, sweepOrphanedUploads } from '../../processes/sweep-orphaned-uploads.ts';
import { createFollowUpRun } from '../../services/runtime/runs/index.ts';
import { resumeRun } from '../../services/runtime/runs/index.ts';
import { systemContext, type ServiceContext } from '../../services/kernel/service-context.ts';
import { createLogger } from '../../config/logger.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { createTestDatabase } from '../support/database.ts';
import { startHoldingProxy, type HoldingProxy } from '../support/holding-proxy.ts';
import { idleInTransaction } from '../support/idle-in-transaction.ts';
import { objectExists as objectExistsIn } from '../support/s3-objects.ts';

/**
 * Files are uploaded before the transaction that records them (docs/decisions/attachment-upload-order.md):
 * a slow object store holds no transaction and no row lock, a transaction that fails after the
 * upload leaves an unreferenced object, and the orphaned-upload sweep removes such objects while
 * every referenced one stays. The object store is real (moto), slowed at the wire by a proxy that
 * holds PUT requests.
 *
 * The slow-store test goes through HTTP, where the idempotency middleware opens the request's
 * transaction only when the verb asks for it; the others call the verbs with a request's actor.
 */

let t: TestApp;
let proxy: HoldingProxy;
let s3: S3Client;
let admin: string;
let projectId: string;
let organizationId: string;
let agentId: string;
let storageProviderId: string;
let requestCtx: () => ServiceContext;
const bucket = `svc-uploads-${randomUUID().slice(0, 8)}`;

const b64 = (text: string) => Buffer.from(text).toString('base64');
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const unique = (label: string) => `${label} ${randomBytes(8).toString('hex')}\n`;
const textFile = (name: string, text: string) => ({ name, contentType: 'text/plain', dataBase64: b64(text) });
const runFilesKey = (name: string) => `${tenantRoot({ providerPrefix: null, organizationId, projectId })}run-files/${name}`;
const systemCtx = () => systemContext({ db: t.database.db, logger: t.deps.logger, clock: t.deps.clock });
const deps = () => ({ runStarter: t.runStarter, keyring: t.deps.keyring, storagePolicy: t.deps.storagePolicy });
const sweep = (options: Parameters<typeof sweepOrphanedUploads>[2]) =>
  sweepOrphanedUploads(systemCtx(), { keyring: t.deps.keyring, storagePolicy: t.deps.storagePolicy }, options);

beforeAll(async () => {
  const server = inject('s3');
  s3 = new S3Client({
    endpoint: server.endpoint,
    region: server.region,
    forcePathStyle: true,
    credentials: { accessKeyId: server.accessKeyId, secretAccessKey: server.secretAccessKey },
  });
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  proxy = await startHoldingProxy(server.endpoint);
  // moto and the proxy listen on 127.0.0.1: only a server that allows private networks may use them.
  t = await createTestApp({ env: { SVC_OUTBOUND_ALLOW_PRIVATE_NETWORK: 'true' } });
  projectId = (await t.login()).context.project.id;
  admin = (await t.createApiKey(['*'])).secret;
  const provider = await call('POST', '/model-providers', { key: 'gw', displayName: 'Gateway', providerType: 'gateway', apiKey: 'sk-or-v1-test' });
  await call('POST', '/model-presets', { key: 'p', displayName: 'P', providerId: provider.body.id, model: 'gateway/@preset/fast', routing: {} });
  const sandboxProvider = await call('POST', '/sandbox-providers', { key: 'local', displayName: 'Local', providerType: 'sandbox_vendor', apiKey: 'local-key' });
  const snapshotId = (await call('GET', `/sandbox-providers/${sandboxProvider.body.id}/snapshots`)).body.data[0].id;
  const agent = await call('POST', '/agents', {
    name: 'Reader',
    initialConfig: {
      systemPrompt: 'Read files.',
      modelPreset: 'p',
      limits: { maxTurns: 4 },
      sandbox: { enabled: true, provider: 'local', snapshotId, network: 'none', capabilities: ['filesystem_read'] },
    },
  });
  expect(agent.status, JSON.stringify(agent.body)).toBe(201);
  agentId = agent.body.id;
  // The organization's default storage connection goes through the proxy.
  const storage = await call('POST', '/storage-providers', {
    key: 'slow',
    displayName: 'Slow',
    providerType: 's3',
    endpoint: proxy.endpoint,
    region: server.region,
    bucket,
    prefix: null,
    forcePathStyle: true,
    accessKeyId: server.accessKeyId,
    secretAccessKey: server.secretAccessKey,
  });
  expect(storage.status, JSON.stringify(storage.body)).toBe(201);
  storageProviderId = storage.body.id;
  const actor = await authenticateApiKey({ ctx: systemCtx(), deps: { keyring: t.deps.keyring }, input: { secret: admin, projectId } });
  organizationId = actor.organizationId;
  requestCtx = () => ({ ...systemCtx(), actor, requestId: randomUUID() });
});

afterAll(async () => {
  await proxy?.close();
  s3?.destroy();
  await t?.close();
});

async function call(method: string, urlPath: string, body?: unknown, options: { idempotencyKey?: string } = {}) {
  const response = await t.request(method, `/v1/projects/${projectId}${urlPath}`, { apiKey: admin, body, ...options });
  return { status: response.status, body: await response.json(), headers: response.headers };
}

/** A session whose first run has settled, so it takes a follow-up turn. */
async function idleSession(): Promise<string> {
  const created = await call('POST', '/sessions', { agentId, initialMessage: 'Hello' });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  await settleLatestRun(created.body.id);
  return created.body.id;
}

async function settleLatestRun(sessionId: string): Promise<void> {
  const [session] = await t.database.db.select().from(sessions).where(eq(sessions.id, sessionId));
  await t.database.db.update(runs).set({ state: 'completed', settledAt: new Date() }).where(eq(runs.id, session!.latestRunId!));
  await t.database.db.update(sessions).set({ status: 'completed' }).where(eq(sessions.id, sessionId));
}

const objectExists = (key: string) => objectExistsIn(s3, bucket, key);

async function runFileKeys(): Promise<string[]> {
  const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: runFilesKey('') }));
  return (page.Contents ?? []).map((entry) => entry.Key!).sort();
}

async function attachmentKeys(): Promise<string[]> {
  return (await t.database.db.select({ key: attachments.objectKey }).from(attachments)).map((row) => row.key);
}

/** Settles to the verb's outcome, so a held call can be awaited after the test moved on. */
const outcomeOf = <T>(promise: Promise<T>) =>
  promise.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );

describe('uploads before the transaction', () => {
  it('a slow object store holds no transaction and no row lock while turns upload over HTTP', async () => {
    const sessionA = await idleSession();
    const sessionB = await idleSession();
    proxy.holdPuts({ maxMs: 15_000 });
    const followUp = call('POST', `/sessions/${sessionA}/runs`, { message: 'Read it', files: [textFile('slow.txt', unique('slow'))] });
    const created = call('POST', '/sessions', { agentId, initialMessage: 'Read this too', files: [textFile('new.txt', unique('new'))] });
    try {
      await proxy.waitForHeld(2);
      // (b) While the bytes travel, no connection of this database sits in an open transaction
      // (PGlite has a single connection: there, (a) below is the check).
      if (t.database.url) expect(await idleInTransaction(t.database.url)).toEqual([]);
      // (a) Another session's turn and a new session are answered while both uploads are held.
      const turnB = await call('POST', `/sessions/${sessionB}/runs`, { message: 'No files' });
      expect(turnB.status, JSON.stringify(turnB.body)).toBe(202);
      const other = await call('POST', '/sessions', { agentId, initialMessage: 'No files either' });
      expect(other.status, JSON.stringify(other.body)).toBe(201);
      expect(proxy.isHolding(), 'requests without files waited for the uploads').toBe(true);
    } finally {
      proxy.release();
    }
    const runA = await followUp;
    expect(runA.status, JSON.stringify(runA.body)).toBe(202);
    expect(runA.body.state).toBe('queued');
    const rows = await t.database.db.select().from(attachments).where(eq(attachments.runId, runA.body.id));
    expect(rows.map((row) => [row.filename, row.storageProviderId])).toEqual([['slow.txt', storageProviderId]]);
    expect(await objectExists(rows[0]!.objectKey)).toBe(true);
    const session = await created;
    expect(session.status, JSON.stringify(session.body)).toBe(201);
    const sessionRows = await t.database.db.select().from(attachments).where(eq(attachments.runId, session.body.latestRunId));
    expect(sessionRows.map((row) => row.filename)).toEqual(['new.txt']);
  }, 60_000);

  it('a turn whose commit fails leaves only an unreferenced object, which the sweep removes', async () => {
    const kept = await call('POST', '/sessions', { agentId, initialMessage: 'Keep this', files: [textFile('kept.txt', unique('kept'))] });
    expect(kept.status, JSON.stringify(kept.body)).toBe(201);
    const [keptRow] = await t.database.db.select().from(attachments).where(eq(attachments.runId, kept.body.latestRunId));
    const sessionA = await idleSession();
    const orphanText = unique('orphan');
    const orphanKey = runFilesKey(sha256(orphanText));
    const before = await t.database.db.select({ n: count() }).from(runs);

    proxy.holdPuts({ maxMs: 15_000 });
    const late = outcomeOf(
      createFollowUpRun({
        ctx: requestCtx(),
        deps: deps(),
        input: { sessionId: sessionA, idempotencyKey: null, message: 'With a file', files: [textFile('late.txt', orphanText)] },
      }),
    );
    try {
      await proxy.waitForHeld(1);
      // The session row is not locked while the bytes travel: another turn on it queues at once.
      const first = await call('POST', `/sessions/${sessionA}/runs`, { message: 'First' });
      expect(first.status, JSON.stringify(first.body)).toBe(202);
      expect(proxy.isHolding(), 'the turn without files waited for the upload').toBe(true);
    } finally {
      proxy.release();
    }
    // The uploading turn then finds the latest run unsettled: 409, nothing recorded.
    const outcome = await late;
    expect(outcome.ok).toBe(false);
    expect((outcome as { error: unknown }).error).toMatchObject({ code: 'conflict', message: expect.stringMatching(/not settled/) });
    const after = await t.database.db.select({ n: count() }).from(runs);
    expect(after[0]!.n).toBe(before[0]!.n + 1);
    expect(await attachmentKeys()).not.toContain(orphanKey);
    expect(await objectExists(orphanKey)).toBe(true);

    // A fresh orphan is inside the default 24-hour grace period: kept.
    expect((await sweep({})).deleted).toBe(0);
    expect(await objectExists(orphanKey)).toBe(true);
    // Without a grace period the orphan goes; every referenced object stays.
    const swept = await sweep({ graceMs: 0 });
    expect(swept).toMatchObject({ deleted: 1, next: null });
    expect(await objectExists(orphanKey)).toBe(false);
    expect(await objectExists(keptRow!.objectKey)).toBe(true);
    for (const key of await attachmentKeys()) expect(await objectExists(key), key).toBe(true);
  }, 60_000);

  it('a busy session or unsettled run is refused before any upload', async () => {
    const busy = await call('POST', '/sessions', { agentId, initialMessage: 'Still running' });
    const objects = await runFileKeys();
    proxy.holdPuts({ maxMs: 15_000 });
    try {
      const input = { idempotencyKey: null, message: 'More', files: [textFile('never.txt', unique('never'))] };
      await expect(createFollowUpRun({ ctx: requestCtx(), deps: deps(), input: { ...input, sessionId: busy.body.id } })).rejects.toMatchObject({
        code: 'conflict',
      });
      await expect(resumeRun({ ctx: requestCtx(), deps: deps(), input: { ...input, runId: busy.body.latestRunId } })).rejects.toMatchObject({
        code: 'conflict',
      });
      expect(proxy.isHolding()).toBe(true);
    } finally {
      proxy.release();
    }
    expect(await runFileKeys()).toEqual(objects);
  });

  it('resumes a settled run with files', async () => {
    const sessionId = await idleSession();
    const [session] = await t.database.db.select().from(sessions).where(eq(sessions.id, sessionId));
    const text = unique('resume');
    const run = await resumeRun({
      ctx: requestCtx(),
      deps: deps(),
      input: { runId: session!.latestRunId!, idempotencyKey: null, message: 'Again', files: [textFile('again.txt', text)] },
    });
    const rows = await t.database.db.select().from(attachments).where(eq(attachments.runId, run.id));
    expect(rows.map((row) => [row.filename, row.objectKey])).toEqual([['again.txt', runFilesKey(sha256(text))]]);
  });

  it('a default storage provider that changes during the upload is a conflict', async () => {
    const sessionId = await idleSession();
    const server = inject('s3');
    proxy.holdPuts({ maxMs: 15_000 });
    const turn = outcomeOf(
      createFollowUpRun({
        ctx: requestCtx(),
        deps: deps(),
        input: { sessionId, idempotencyKey: null, message: 'Moving', files: [textFile('moving.txt', unique('moving'))] },
      }),
    );
    let direct: { status: number; body: any };
    try {
      await proxy.waitForHeld(1);
      direct = await call('POST', '/storage-providers', {
        key: `direct-${randomBytes(3).toString('hex')}`,
        displayName: 'Direct',
        providerType: 's3',
        endpoint: server.endpoint,
        region: server.region,
        bucket,
        prefix: null,
        forcePathStyle: true,
        accessKeyId: server.accessKeyId,
        secretAccessKey: server.secretAccessKey,
        setDefault: true,
      });
      expect(direct.status, JSON.stringify(direct.body)).toBe(201);
    } finally {
      proxy.release();
    }
    const outcome = await turn;
    expect((outcome as { error?: unknown }).error).toMatchObject({ code: 'conflict', message: expect.stringMatching(/default storage provider changed/) });
    const [latest] = await t.database.db.select().from(sessions).where(eq(sessions.id, sessionId));
    expect(await t.database.db.select().from(attachments).where(eq(attachments.sessionId, sessionId))).toEqual([]);
    expect(latest!.status).toBe('completed');
    expect((await call('PUT', `/storage-providers/${storageProviderId}/default`)).status).toBe(200);
    // The upload stays behind unreferenced, for the sweep.
    expect(await sweep({ graceMs: 0 })).toMatchObject({ deleted: 1, next: null });
  }, 60_000);
});

describe('content-addressed objects', () => {
  it('equal bytes share one object, and a replayed session creation uploads and creates nothing', async () => {
    const text = unique('twice');
    const body = { agentId, initialMessage: 'Same bytes twice', files: [textFile('one.txt', text), textFile('two.txt', text)] };
    const key = `replay-${randomBytes(4).toString('hex')}`;
    const first = await call('POST', '/sessions', body, { idempotencyKey: key });
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    const rows = await t.database.db.select().from(attachments).where(eq(attachments.runId, first.body.latestRunId));
    expect(rows.map((row) => row.objectKey)).toEqual([runFilesKey(sha256(text)), runFilesKey(sha256(text))]);
    expect(new Set(rows.map((row) => row.id)).size).toBe(2);

    const counts = async () => ({
      sessions: (await t.database.db.select({ n: count() }).from(sessions))[0]!.n,
      runs: (await t.database.db.select({ n: count() }).from(runs))[0]!.n,
      attachments: (await t.database.db.select({ n: count() }).from(attachments))[0]!.n,
    });
    const before = { rows: await counts(), objects: await runFileKeys() };
    // A replay answers from the stored response: held PUTs would stall it if it uploaded.
    proxy.holdPuts({ maxMs: 15_000 });
    let again: Awaited<ReturnType<typeof call>>;
    try {
      again = await call('POST', '/sessions', body, { idempotencyKey: key });
      expect(proxy.isHolding()).toBe(true);
    } finally {
      proxy.release();
    }
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect({ rows: await counts(), objects: await runFileKeys() }).toEqual(before);
  });
  it('parallel session creations with one key and files create one session, and the others replay it', async () => {
    const body = { agentId, initialMessage: 'Once only', files: [textFile('once.txt', unique('once'))] };
    const key = `parallel-${randomBytes(4).toString('hex')}`;
    const before = (await t.database.db.select({ n: count() }).from(sessions))[0]!.n;
    const answers = await Promise.all(Array.from({ length: 6 }, () => call('POST', '/sessions', body, { idempotencyKey: key })));
    for (const answer of answers) expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    expect(new Set(answers.map((answer) => answer.body.id)).size).toBe(1);
    expect(answers.filter((answer) => answer.headers.get('idempotency-replayed') === null)).toHaveLength(1);
    expect((await t.database.db.select({ n: count() }).from(sessions))[0]!.n).toBe(before + 1);
    expect(await t.database.db.select().from(attachments).where(eq(attachments.sessionId, answers[0]!.body.id))).toHaveLength(1);
  });
});

describe('the orphaned-upload sweep', () => {
  it('treats legacy keys alike, leaves names it did not write, and works in bounded steps', async () => {
    const put = (key: string, text: string) => s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: text }));
    // A legacy key (the attachment id) that a row references stays; an unreferenced one goes.
    const legacy = await call('POST', '/sessions', { agentId, initialMessage: 'Legacy', files: [textFile('legacy.txt', unique('legacy'))] });
    const [legacyRow] = await t.database.db.select().from(attachments).where(eq(attachments.runId, legacy.body.latestRunId));
    const legacyKey = runFilesKey(legacyRow!.id);
    await put(legacyKey, 'legacy bytes');
    await t.database.db.update(attachments).set({ objectKey: legacyKey }).where(eq(attachments.id, legacyRow!.id));
    const legacyOrphan = runFilesKey(randomUUID());
    await put(legacyOrphan, 'unreferenced legacy bytes');
    // Names the service never writes there are not its business.
    const foreign = [runFilesKey('readme.txt'), runFilesKey(`${randomUUID()}/nested.txt`), runFilesKey('A'.repeat(64))];
    for (const key of foreign) await put(key, 'not ours');
    const orphans = Array.from({ length: 5 }, () => unique('orphan'));
    for (const text of orphans) await put(runFilesKey(sha256(text)), text);

    // One LIST of two keys and at most one delete per call: the position carries the sweep on.
    let position = null;
    let calls = 0;
    let deleted = 0;
    do {
      const step = await sweep({ graceMs: 0, maxPages: 1, pageSize: 2, maxDeletes: 1, from: position });
      expect(step.deleted).toBeLessThanOrEqual(1);
      deleted += step.deleted;
      position = step.next;
      calls += 1;
    } while (position !== null && calls < 100);
    expect(position).toBeNull();
    expect(calls).toBeGreaterThan(orphans.length);
    // The five, the unreferenced legacy key, and the row's first object (no row names it any more).
    expect(deleted).toBe(orphans.length + 2);
    expect(await objectExists(runFilesKey(legacyRow!.sha256))).toBe(false);
    for (const text of orphans) expect(await objectExists(runFilesKey(sha256(text)))).toBe(false);
    expect(await objectExists(legacyOrphan)).toBe(false);
    expect(await objectExists(legacyKey)).toBe(true);
    for (const key of foreign) expect(await objectExists(key), key).toBe(true);
    for (const key of await attachmentKeys()) expect(await objectExists(key), key).toBe(true);
  });

  it('keeps the object of a standalone upload until it is deleted or expires', async () => {
    const kept = unique('kept upload');
    const upload = await call('POST', '/uploads', { name: 'kept.txt', contentType: 'text/plain', dataBase64: Buffer.from(kept).toString('base64') });
    expect(upload.status, JSON.stringify(upload.body)).toBe(201);
    const expiring = unique('expiring upload');
    const soon = await call('POST', '/uploads', {
      name: 'soon.txt',
      contentType: 'text/plain',
      dataBase64: Buffer.from(expiring).toString('base64'),
      expiresInSeconds: 3600,
    });
    const { uploads } = await import('../../db/schema/index.ts');
    await t.database.db
      .update(uploads)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(uploads.id, soon.body.id));
    await sweep({ graceMs: 0 });
    expect(await objectExists(runFilesKey(sha256(kept)))).toBe(true);
    expect(await objectExists(runFilesKey(sha256(expiring)))).toBe(false);
    expect((await call('DELETE', `/uploads/${upload.body.id}`)).status).toBe(200);
    await sweep({ graceMs: 0 });
    expect(await objectExists(runFilesKey(sha256(kept)))).toBe(false);
  });

  it('skips a storage provider it cannot reach and sweeps the others', async () => {
    const unreachable = await startHoldingProxy(inject('s3').endpoint);
    const endpoint = unreachable.endpoint;
    await unreachable.close();
    const server = inject('s3');
    const dead = await call('POST', '/storage-providers', {
      key: 'gone',
      displayName: 'Gone',
      providerType: 's3',
      endpoint,
      region: server.region,
      bucket,
      prefix: null,
      forcePathStyle: true,
      accessKeyId: server.accessKeyId,
      secretAccessKey: server.secretAccessKey,
    });
    expect(dead.status, JSON.stringify(dead.body)).toBe(201);
    const text = unique('orphan');
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: runFilesKey(sha256(text)), Body: text }));
    const logged = t.logLines.length;
    const result = await sweep({ graceMs: 0 });
    expect(result).toMatchObject({ deleted: 1, next: null });
    expect(await objectExists(runFilesKey(sha256(text)))).toBe(false);
    const warnings = t.logLines.slice(logged).filter((line) => line.includes('orphaned-upload sweep skipped a storage provider'));
    expect(warnings.map((line) => JSON.parse(line).providerId)).toEqual([dead.body.id]);
  }, 60_000);

  it('runs in a loop that outlives failed ticks and stops cleanly', async () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'info', sink: (line) => lines.push(line) });
    // A tick against a closed database fails; the loop logs it and keeps its schedule.
    const closed = await createTestDatabase();
    await closed.drop();
    const failing = startOrphanedUploadSweeper(
      systemContext({ db: closed.db, logger }),
      { keyring: t.deps.keyring, storagePolicy: t.deps.storagePolicy },
      { intervalMs: 20 },
    );
    const failures = () => lines.filter((line) => line.includes('orphaned-upload sweep failed')).length;
    await waitUntil(() => failures() >= 2);
    await failing.stop();
    const afterStop = failures();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(failures()).toBe(afterStop);

    // The loop as the worker runs it, with a grace period of 0: an orphan goes on the next tick.
    const text = unique('looped');
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: runFilesKey(sha256(text)), Body: text }));
    const sweeper = startOrphanedUploadSweeper(systemCtx(), { keyring: t.deps.keyring, storagePolicy: t.deps.storagePolicy }, { intervalMs: 50, graceMs: 0 });
    try {
      await waitUntil(async () => !(await objectExists(runFilesKey(sha256(text)))));
    } finally {
      await sweeper.stop();
    }
    for (const key of await attachmentKeys()) expect(await objectExists(key), key).toBe(true);
  }, 60_000);
});

async function waitUntil(condition: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
