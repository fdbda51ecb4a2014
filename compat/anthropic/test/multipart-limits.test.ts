import Anthropic, { toFile } from '@anthropic-ai/sdk';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { FILE_UPLOAD_LIMITS } from '../api/files.ts';
import { SKILL_UPLOAD_LIMITS } from '../api/skills.ts';
import { SKILL_FILE_MAX_BYTES, SKILL_MAX_FILES, SKILL_PACKAGE_MAX_BYTES } from '../../../domain/skills/limits.ts';
import { createProcessDatabase, developmentApiKey } from '../../../test/support/process-bootstrap.ts';
import {
  fieldPart,
  filePart,
  oneByteParts,
  openUpload as openRawUpload,
  uploadOnce,
  within,
  type Answer,
  type RawUpload,
} from '../../../test/support/raw-multipart.ts';
import { killProcess, startApiProcess } from '../../../test/support/worker-process.ts';

/**
 * Multipart bodies are read as a stream with their limits checked as bytes arrive (issue 45
 * item 3), against the API as its own process (`npm run api`), over raw sockets so the moment a
 * part has been sent is well defined: a hostile body is refused at the part that passes a limit,
 * before the rest of it is sent, and `/healthz` keeps answering while three clients send bodies of
 * 300,000 one-byte parts. Reading such a body whole held the event loop for 6.8 s per request and
 * `/healthz` for 12 s; the ceilings here (an answer within 1 s of the part, no probe slower than
 * 1 s) sit an order of magnitude below that and far above a loaded host's scheduling delay, and
 * the figures measured are printed (the 100 ms and 50 ms are what an idle host shows).
 * The ordinary uploads, at the largest sizes the limits allow, go through the official SDK.
 */
const CEILING_MS = 1_000;
const provided = inject('database');
let api: { child: ChildProcess; url: string };
let database: Awaited<ReturnType<typeof createProcessDatabase>>;
let dataDir: string;
let key: string;
let s3: S3Client;
const bucket = `svc-multipart-${crypto.randomUUID().slice(0, 8)}`;

beforeAll(async () => {
  if (provided.kind !== 'postgres') return;
  const storage = inject('s3');
  s3 = new S3Client({
    endpoint: storage.endpoint,
    region: storage.region,
    forcePathStyle: true,
    credentials: { accessKeyId: storage.accessKeyId, secretAccessKey: storage.secretAccessKey },
  });
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  database = await createProcessDatabase(provided, 'multipart');
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-multipart-'));
  // moto listens on 127.0.0.1: development's private-network setting.
  const env = { SVC_RATE_LIMIT_API_KEY_PER_SECOND: '0', SVC_RATE_LIMIT_PROJECT_PER_SECOND: '0', SVC_OUTBOUND_ALLOW_PRIVATE_NETWORK: 'true' };
  api = await startApiProcess({ databaseUrl: database.url, taskQueue: `multipart-${crypto.randomUUID()}`, dataDir, env });
  const developer = await developmentApiKey(api.url, 'multipart');
  key = developer.key;
  const provider = await fetch(`${api.url}/v1/projects/${developer.projectId}/storage-providers`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': 'multipart-storage' },
    body: JSON.stringify({
      key: 'files',
      displayName: 'Files',
      providerType: 's3',
      endpoint: storage.endpoint,
      region: storage.region,
      bucket,
      prefix: null,
      forcePathStyle: true,
      accessKeyId: storage.accessKeyId,
      secretAccessKey: storage.secretAccessKey,
    }),
  });
  expect(provider.status).toBe(201);
}, 120_000);
afterAll(async () => {
  if (api) await killProcess(api.child);
  await database?.drop();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  s3?.destroy();
});

/** A raw upload to the compatible API (test/support/raw-multipart.ts). */
const openUpload = (path: string, options: { contentLength?: number; contentType?: string } = {}) =>
  openRawUpload(api.url, key, `/compat/anthropic/v1${path}`, options);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The upload's parts within the limit are taken (no answer yet); the part past it is refused with
 * the rest of the body unsent, within the ceiling.
 */
async function expectRefusedAtOnce(upload: RawUpload, allowed: Buffer, past: Buffer): Promise<Answer> {
  await upload.send(allowed);
  await sleep(300);
  expect(upload.answered()).toBe(false);
  const sentAt = await upload.send(past);
  const answer = await Promise.race([upload.answer, sleep(10_000).then(() => null)]);
  expect(answer, 'no answer within 10 s of the part past the limit').not.toBeNull();
  console.log(`refused ${Math.round(answer!.at - sentAt)} ms after the part past the limit`);
  expect(answer!.at - sentAt).toBeLessThan(CEILING_MS);
  return answer!;
}

describe.skipIf(provided.kind !== 'postgres')('hostile multipart bodies', () => {
  it('refuses the first one-byte file part past the Skill upload limit as it arrives', async () => {
    const upload = openUpload('/skills');
    const answer = await expectRefusedAtOnce(upload, oneByteParts(SKILL_UPLOAD_LIMITS.maxFiles), oneByteParts(1));
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({
      type: 'invalid_request_error',
      message: `The body may hold at most ${SKILL_MAX_FILES + 1} file parts`,
      details: { limit: 'multipart_files', max: SKILL_MAX_FILES + 1 },
    });
    upload.destroy();
  });

  it('refuses a file part past 10 MiB at its first byte past the limit (413)', async () => {
    const upload = openUpload('/files');
    const header = filePart('file', 'big.bin').subarray(0, -3);
    const data = Buffer.alloc(FILE_UPLOAD_LIMITS.maxFileBytes, 0x61);
    const answer = await expectRefusedAtOnce(upload, Buffer.concat([header, data]), Buffer.alloc(1024, 0x61));
    expect(answer.status).toBe(413);
    expect(answer.body.error).toMatchObject({
      type: 'request_too_large',
      message: 'file: a file part may hold at most 10,485,760 bytes',
      details: { limit: 'multipart_file_bytes', maxBytes: 10_485_760 },
    });
    upload.destroy();
  });

  it('refuses a Skill file past 1 MiB, a long display_name, a second display_name, an unknown part and a body past its limit', async () => {
    const refusal = async (path: string, bytes: Buffer) => {
      const upload = openUpload(path);
      await upload.send(bytes);
      const answer = await within(upload.answer, 10_000, 'an answer');
      upload.destroy();
      return answer;
    };
    expect(await refusal('/skills', filePart('files[]', 'big/SKILL.md', Buffer.alloc(SKILL_FILE_MAX_BYTES + 1, 0x61)))).toMatchObject({
      status: 413,
      body: { error: { type: 'request_too_large', details: { limit: 'multipart_file_bytes', maxBytes: SKILL_FILE_MAX_BYTES } } },
    });
    expect(await refusal('/skills', Buffer.concat([fieldPart('display_name', 'é'.repeat(401)), fieldPart('display_name', 'x')]))).toMatchObject({
      status: 413,
      body: { error: { type: 'request_too_large', message: 'display_name: a text part may hold at most 800 bytes' } },
    });
    expect(await refusal('/skills', Buffer.concat([fieldPart('display_name', 'A'), fieldPart('display_name', 'B')]))).toMatchObject({
      status: 400,
      body: { error: { details: { limit: 'multipart_fields', max: 1 } } },
    });
    expect(await refusal('/files', filePart('files[]', 'a.md'))).toMatchObject({
      status: 400,
      body: { error: { type: 'invalid_request_error', message: 'files[]: not a field of a file upload (one "file" part, optional "expires_in_seconds")' } },
    });
    // Many files each within the limits: refused as the body passes its own limit.
    const files = Array.from({ length: SKILL_UPLOAD_LIMITS.maxBodyBytes / SKILL_FILE_MAX_BYTES + 1 }, (_, index) =>
      filePart('files[]', `many/f${index}.md`, Buffer.alloc(SKILL_FILE_MAX_BYTES, 0x61)),
    );
    expect(await refusal('/skills', Buffer.concat(files))).toMatchObject({
      status: 413,
      body: { error: { details: { limit: 'multipart_body_bytes', maxBytes: SKILL_UPLOAD_LIMITS.maxBodyBytes } } },
    });
    // A declared length past the limit is refused before any byte of the body is sent.
    const declared = openUpload('/skills', { contentLength: SKILL_UPLOAD_LIMITS.maxBodyBytes + 1 });
    expect(await within(declared.answer, 10_000, 'an answer')).toMatchObject({ status: 413, body: { error: { details: { limit: 'multipart_body_bytes' } } } });
    declared.destroy();
  });

  it('holds every other body of the compatible API to its 40 MiB ceiling as it arrives, chunked or declared', async () => {
    const ceiling = 40 * 1024 * 1024;
    const chunked = openUpload('/agents', { contentType: 'application/json' });
    await chunked.send(Buffer.alloc(ceiling, 0x20));
    await sleep(300);
    expect(chunked.answered()).toBe(false);
    void chunked.send(Buffer.from('  '));
    expect(await within(chunked.answer, 10_000, 'an answer')).toMatchObject({
      status: 413,
      body: { error: { type: 'request_too_large', details: { limit: 'request_body_bytes', maxBytes: ceiling } } },
    });
    chunked.destroy();
    const declared = openUpload('/agents', { contentType: 'application/json', contentLength: ceiling + 1 });
    expect(await within(declared.answer, 10_000, 'an answer')).toMatchObject({
      status: 413,
      body: { error: { type: 'request_too_large', details: { limit: 'request_body_bytes' } } },
    });
    declared.destroy();
  });

  it('keeps /healthz answering while three clients send hostile bodies of 300,000 parts, one after another', async () => {
    /** How long `/healthz` took to answer 200 (infinite when it did not). */
    const probe = async () => {
      const started = performance.now();
      const response = await fetch(`${api.url}/healthz`).catch(() => null);
      if (response?.status !== 200) return Number.POSITIVE_INFINITY;
      await response.text();
      return performance.now() - started;
    };
    // The probe's own first connection is not what is measured.
    await probe();
    const paths = ['/skills', `/skills/${crypto.randomUUID()}/versions`, '/files'].map((path) => `/compat/anthropic/v1${path}`);
    // Nor is the first use of these routes in the API process: one hostile round first.
    const hostile = oneByteParts(300_000);
    expect(await Promise.all(paths.map((path) => uploadOnce(api.url, key, path, hostile)))).toEqual([400, 400, 400]);

    // The clients send from a thread of their own, so this one measures the server, not its own sending.
    const clients = new Worker(new URL('../../../test/support/hostile-uploads-worker.ts', import.meta.url), {
      workerData: { baseUrl: api.url, key, paths, parts: 300_000, durationMs: 1_000 },
    });
    const message = (): Promise<{ ready?: true; statuses?: number[]; error?: string }> =>
      new Promise((resolve, reject) => clients.once('message', resolve).once('error', reject));
    try {
      await message();
      const finished = message();
      let done = false;
      void finished.finally(() => (done = true));
      clients.postMessage('start');
      const latencies: number[] = [];
      while (!done) {
        latencies.push(await probe());
        await sleep(5);
      }
      const { statuses, error } = await finished;
      expect(error).toBeUndefined();
      console.log(`/healthz during hostile bodies: ${latencies.length} probes, slowest ${Math.round(Math.max(...latencies))} ms`);
      expect(Math.max(...latencies), `/healthz latencies (ms): ${latencies.map(Math.round).join(' ')}`).toBeLessThan(CEILING_MS);
      expect(statuses!.length).toBeGreaterThanOrEqual(3);
      expect(new Set(statuses)).toEqual(new Set([400]));
    } finally {
      await clients.terminate();
    }
  }, 120_000);
});

describe.skipIf(provided.kind !== 'postgres')('ordinary uploads through the SDK, at the largest sizes the limits allow', () => {
  const sdk = () => new Anthropic({ baseURL: `${api.url}/compat/anthropic`, apiKey: key });

  it('publishes a Skill of 100 files and 8 MiB with its SKILL.md', async () => {
    const size = Math.floor(SKILL_PACKAGE_MAX_BYTES / SKILL_MAX_FILES);
    const skillMd = `---\nname: largest\ndescription: The largest package.\n---\n# Largest\n\n${'Follow the steps.\n'.repeat(1000)}`;
    const files = await Promise.all([
      toFile(Buffer.from(skillMd), 'largest/SKILL.md'),
      ...Array.from({ length: SKILL_MAX_FILES }, (_, index) => toFile(Buffer.alloc(size, 0x61), `largest/docs/part-${index}.md`)),
    ]);
    const skill = await sdk().beta.skills.create({ display_name: '€'.repeat(200), files });
    expect(skill).toMatchObject({ type: 'skill', display_name: '€'.repeat(200), latest_version_id: expect.any(String) });
  }, 60_000);

  it('answers an SDK upload past the limits with its 413, not a connection error', async () => {
    const client = new Anthropic({ baseURL: `${api.url}/compat/anthropic`, apiKey: key, maxRetries: 0 });
    // 1 MiB past the limit: what the server drains after answering (at most 500 ms) is small.
    const big = await toFile(Buffer.alloc(FILE_UPLOAD_LIMITS.maxFileBytes + 1024 * 1024, 0x62), 'big.txt', { type: 'text/plain' });
    const error = await client.beta.files.upload({ file: big }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ status: 413, error: { error: { type: 'request_too_large' } } });
  }, 60_000);

  it('uploads a file of exactly 10 MiB, stored byte for byte', async () => {
    const bytes = Buffer.alloc(FILE_UPLOAD_LIMITS.maxFileBytes, 0x62);
    const client = sdk();
    const uploaded = await client.beta.files.upload({ file: await toFile(bytes, 'largest.txt', { type: 'text/plain' }), expires_in_seconds: 3600 });
    expect(uploaded).toMatchObject({ filename: 'largest.txt', size_bytes: bytes.length });
    const downloaded = Buffer.from(await (await client.beta.files.download(uploaded.id)).arrayBuffer());
    expect(createHash('sha256').update(downloaded).digest('hex')).toBe(createHash('sha256').update(bytes).digest('hex'));
  }, 60_000);
});
