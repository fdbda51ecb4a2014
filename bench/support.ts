import { takeSseFrames } from '../domain/sse-frames.ts';
import { randomBytes, randomUUID } from 'node:crypto';
import * as http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import postgres from 'postgres';
import { createLogger } from '../config/logger.ts';
import { openDatabase, type DatabaseHandle } from '../db/client.ts';
import { migrateDatabase } from '../db/migrate.ts';
import { organizations, projects } from '../db/schema/index.ts';
import { systemClock, type ServiceContext, systemContext } from '../services/kernel/service-context.ts';

/**
 * Shared bench harness. Every benchmark measures its subject beside a baseline in the same run
 * on the same machine and reports the ratio against a target, so figures stay comparable across
 * machines. Benches use the machine's PostgreSQL (BENCH_DATABASE_URL, default
 * postgres://postgres@127.0.0.1:5432) and create and drop their own database.
 */

/** One measured quantity next to its in-run baseline; `ratio` = value / baseline. */
/**
 * The per-key and per-project request limits off: a bench drives the engine from one API key far
 * faster than the default 50 requests/s, and measures the engine, not the limiter (whose cost
 * with the limits on is a map lookup per request).
 */
export const REQUEST_LIMITS_OFF = { SVC_RATE_LIMIT_API_KEY_PER_SECOND: '0', SVC_RATE_LIMIT_PROJECT_PER_SECOND: '0' } as const;

export type BenchRecord = {
  name: string;
  unit: string;
  value: number;
  baseline: number;
  ratio: number;
  /** The ratio to meet: a floor when higher is better, a ceiling when lower is better. */
  target: number;
  better: 'higher' | 'lower';
  /** What `baseline` is, when it is not a measured baseline (an absolute ceiling): printed instead of `baseline`. */
  against?: string;
};

const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** Runs `fn` against a fresh, empty database on the bench server, dropped afterwards. */
export async function withBenchDatabase<T>(fn: (url: string) => Promise<T>): Promise<T> {
  const name = `svc_bench_${randomBytes(4).toString('hex')}`;
  const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${name}"`);
  try {
    const url = new URL(ADMIN_URL);
    url.pathname = `/${name}`;
    return await fn(url.toString());
  } finally {
    await admin.unsafe(`drop database if exists "${name}" with (force)`);
    await admin.end({ timeout: 5 });
  }
}

/** A migrated database with one organization; returns a helper creating projects in it. */
export async function openBenchDatabase(url: string, maxConnections: number) {
  const database = await openDatabase({ driver: 'postgres', url, maxConnections });
  await migrateDatabase(database);
  const [organization] = await database.db.insert(organizations).values({ slug: 'bench', name: 'Bench' }).returning();
  const organizationId = organization!.id;
  const createProject = async () => {
    const [project] = await database.db.insert(projects).values({ organizationId, slug: randomUUID(), name: 'Bench' }).returning();
    return project!.id;
  };
  return { database, organizationId, createProject };
}

export function benchContext(database: DatabaseHandle): ServiceContext {
  const logger = createLogger({ level: 'error' });
  return systemContext({ db: database.db, logger, clock: systemClock });
}

/** Runs `writers` loops of `operation` for `ms` milliseconds; returns operations per second. */
export async function throughput(writers: number, ms: number, operation: (writer: number, i: number) => Promise<unknown>): Promise<number> {
  const started = performance.now();
  const deadline = started + ms;
  const counts = await Promise.all(
    Array.from({ length: writers }, async (_, writer) => {
      let i = 0;
      while (performance.now() < deadline) await operation(writer, i++);
      return i;
    }),
  );
  return counts.reduce((a, b) => a + b, 0) / ((performance.now() - started) / 1000);
}

export function printRecords(records: BenchRecord[]): void {
  for (const record of records) {
    const pass = record.better === 'higher' ? record.ratio >= record.target : record.ratio <= record.target;
    const bound = record.better === 'higher' ? '≥' : '≤';
    console.log(
      `${record.name}: ${record.value.toFixed(1)} ${record.unit} vs ${record.against ?? 'baseline'} ${record.baseline.toFixed(1)} ${record.unit}` +
        ` → ${record.ratio.toFixed(2)}× (target ${bound} ${record.target}×) ${pass ? 'PASS' : 'FAIL'}`,
    );
  }
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

const ORIGIN = 'http://localhost:8080';

/**
 * The in-process app as an integration sees it: a development login, then an API key with every
 * scope; `call` sends JSON with a fresh Idempotency-Key and throws on any non-2xx answer.
 */
export async function apiFor(app: { request(path: string, init: RequestInit): Response | Promise<Response> }, keyName = 'bench') {
  const login = await app.request('/v1/auth/development/login', { method: 'POST', headers: { origin: ORIGIN } });
  if (login.status !== 200) throw new Error(`development login failed: ${login.status}`);
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
  const { context } = (await login.json()) as { context: { project: { id: string }; organization: { id: string } } };
  const projectId = context.project.id;
  const send = async (method: string, requestPath: string, body: unknown, auth: Record<string, string>) => {
    const response = await app.request(requestPath, {
      method,
      headers: { ...auth, accept: 'application/json', 'content-type': 'application/json', 'idempotency-key': randomBytes(8).toString('hex') },
      body: JSON.stringify(body),
    });
    if (response.status >= 300) throw new Error(`${method} ${requestPath} answered ${response.status}: ${await response.text()}`);
    return (await response.json()) as any;
  };
  const key = await send('POST', `/v1/projects/${projectId}/api-keys`, { name: keyName, scopes: ['*'] }, { origin: ORIGIN, cookie });
  const authorization = `Bearer ${key.secret as string}`;
  return {
    projectId,
    organizationId: context.organization.id,
    authorization,
    call: (method: string, requestPath: string, body: unknown) => send(method, requestPath, body, { authorization }),
  };
}

/** Runs `fn(0..n-1)` with at most `concurrency` in flight. */
export async function pool(n: number, concurrency: number, fn: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, concurrency) }, async () => {
      while (next < n) await fn(next++);
    }),
  );
}

/** The `p`th percentile (0-100) of values sorted ascending. */
export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

/** Frames of a native event stream as they arrive: `event` kind and parsed `data`. */
export async function* sseFrames(body: ReadableStream<Uint8Array>): AsyncGenerator<{ kind: string; data: Record<string, any> }> {
  const decoder = new TextDecoder();
  let buffered = '';
  for await (const chunk of body) {
    const { frames, rest } = takeSseFrames(buffered + decoder.decode(chunk, { stream: true }));
    buffered = rest;
    for (const frame of frames) if (frame.event !== null && frame.data !== null) yield { kind: frame.event, data: JSON.parse(frame.data) };
  }
}

/** An SSE frame as a bench client sees it (frames without an event or data are skipped). */
export type StreamFrame = { id: string | null; event: string; data: Record<string, any> };

/**
 * One SSE client over plain HTTP (no pooling agent, as a real client has its own connection);
 * `onFrame` sees each frame as it arrives, with the time it arrived. Resolves once the headers are
 * in, with when the request began.
 */
export function openEventStream(
  port: number,
  path: string,
  headers: Record<string, string>,
  onFrame: (frame: StreamFrame, at: number) => void,
): Promise<{ close(): void; began: number }> {
  return new Promise((resolve, reject) => {
    const began = performance.now();
    const request = http.get({ host: '127.0.0.1', port, path, headers: { accept: 'text/event-stream', ...headers }, agent: false });
    request.on('error', reject);
    request.on('response', (response) => {
      if (response.statusCode !== 200) {
        response.resume();
        return reject(new Error(`SSE connect to ${path} answered ${response.statusCode}`));
      }
      let buffered = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        const at = performance.now();
        const { frames, rest } = takeSseFrames(buffered + chunk);
        buffered = rest;
        for (const frame of frames)
          if (frame.event !== null && frame.data !== null) onFrame({ id: frame.id, event: frame.event, data: JSON.parse(frame.data) }, at);
      });
      response.on('error', () => {});
      request.removeListener('error', reject);
      request.on('error', () => {});
      resolve({ close: () => request.destroy(), began });
    });
  });
}

/** Waits until `check()` holds, polling every millisecond; throws naming `what` after `timeoutMs`. */
export async function until(what: string, check: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!check()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(1);
  }
}

/**
 * A caller-owned tool the instant model can be told to call (`call lookup`), answered by a bench
 * as its caller with `{ ok: true }` (claim, then result).
 */
export const CALLER_LOOKUP_TOOL = {
  name: 'lookup',
  description: 'Looks something up on the caller side.',
  owner: 'caller',
  approval: 'never',
  inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  outputSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
} as const;
