/**
 * SSE commit-to-client latency (p50, p99) with 1,000 real HTTP clients on loopback following
 * `GET /v1/projects/{id}/events` of the real app (auth, shared ProjectEventTail, Hono streaming),
 * for events appended and committed one at a time. Baseline, measured in the same run: a raw
 * `node:http` server that writes the same frames to 1,000 clients right after the same commit.
 * Target: at most 1.5× the baseline. Clients live in this process on both sides, so their
 * parsing cost is shared; the difference is notification, the log read and the app's stream.
 *
 *   node_modules/.bin/node bench/sse-fanout.bench.ts
 */
import { randomBytes, randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { serve } from '@hono/node-server';
import { createApp } from '../api/app.ts';
import { createAppDeps } from '../scripts/app-deps.ts';
import { createLogger } from '../config/logger.ts';
import { parseSettings } from '../config/settings.ts';
import { openDatabase } from '../db/client.ts';
import { migrateDatabase } from '../db/migrate.ts';
import { decodeEventCursor, encodeEventCursor } from '../domain/event-cursor.ts';
import { appendProductEvent } from '../services/kernel/events/index.ts';
import type { PublicProductEvent } from '../services/kernel/events/index.ts';
import { latestProjectPosition } from '../services/kernel/events/index.ts';
import { benchContext, percentile, printRecords, REQUEST_LIMITS_OFF, withBenchDatabase, type BenchRecord } from './support.ts';
import { takeSseFrames } from '../domain/sse-frames.ts';

type Options = { clients?: number; events?: number; warmup?: number };
type Target = { port: number; path: string; headers: Record<string, string> };

/** Fans frames out to clients, timing each frame from its commit to its arrival. */
function createLatencyRecorder(projectId: string, clients: number) {
  const committedAt = new Map<number, number>();
  const early = new Map<number, number[]>();
  const arrivals = new Map<number, { count: number; done: () => void }>();
  const samples: number[] = [];
  const record = (position: number, at: number) => {
    const committed = committedAt.get(position);
    if (committed === undefined) early.set(position, [...(early.get(position) ?? []), at]);
    // The NOTIFY can beat the writer's commit acknowledgement; such frames count as 0 ms.
    else samples.push(Math.max(0, at - committed));
    const waiting = arrivals.get(position);
    if (waiting && ++waiting.count === clients) waiting.done();
  };
  return {
    samples,
    expect(position: number): Promise<void> {
      return new Promise((done) => arrivals.set(position, { count: 0, done }));
    },
    committed(position: number, at: number) {
      committedAt.set(position, at);
      for (const arrived of early.get(position) ?? []) samples.push(Math.max(0, arrived - at));
      early.delete(position);
    },
    /** Opens one SSE client; resolves once the response headers arrived. */
    connect(target: Target): Promise<http.ClientRequest> {
      return new Promise((resolve, reject) => {
        const request = http.get({ host: '127.0.0.1', port: target.port, path: target.path, headers: target.headers, agent: false });
        request.on('error', reject);
        request.on('response', (response) => {
          if (response.statusCode !== 200) reject(new Error(`SSE connect answered ${response.statusCode}`));
          let buffered = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => {
            const at = performance.now();
            const { frames, rest } = takeSseFrames(buffered + chunk);
            buffered = rest;
            for (const frame of frames) if (frame.id !== null) record(Number(decodeEventCursor(frame.id, projectId)), at);
          });
          response.on('error', () => {});
          resolve(request);
        });
      });
    },
  };
}

/** Connects the clients, appends events one at a time, waits for each to reach every client. */
async function measure(
  options: Required<Options>,
  projectId: string,
  target: (after: bigint) => Target,
  append: (i: number) => Promise<PublicProductEvent>,
  ready: () => Promise<void>,
  latest: bigint,
) {
  const recorder = createLatencyRecorder(projectId, options.clients);
  const requests: http.ClientRequest[] = [];
  for (let i = 0; i < options.clients; i += 50) {
    const batch = Array.from({ length: Math.min(50, options.clients - i) }, () => recorder.connect(target(latest)));
    requests.push(...(await Promise.all(batch)));
  }
  await ready();
  let position = Number(latest);
  for (let i = 0; i < options.warmup + options.events; i++) {
    if (i === options.warmup) recorder.samples.length = 0;
    position += 1;
    const arrived = recorder.expect(position);
    const event = await append(i);
    recorder.committed(Number(event.projectPosition), performance.now());
    await Promise.race([arrived, sleep(10_000).then(() => Promise.reject(new Error(`event ${position} did not reach every client`)))]);
  }
  for (const request of requests) request.destroy();
  const sorted = [...recorder.samples].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), position: BigInt(position) };
}

/** A frame identical to the feed's: `id` cursor, `event` kind, `data` public event. */
const frameOf = (event: PublicProductEvent) =>
  `id: ${encodeEventCursor(event.projectId, BigInt(event.projectPosition))}\nevent: ${event.kind}\ndata: ${JSON.stringify(event)}\n\n`;

export async function run(options: Options = {}): Promise<BenchRecord[]> {
  const settings: Required<Options> = { clients: 1000, events: 100, warmup: 10, ...options };
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-'));
  try {
    return await withBenchDatabase(async (url) => {
      const database = await openDatabase({ driver: 'postgres', url, maxConnections: 10 });
      await migrateDatabase(database);
      const logger = createLogger({ level: 'error' });
      // Limits off: 1,000 streams of one key, connected 50 at a time (limits: event-stream-limits.test.ts).
      const limitsOff = { SVC_EVENT_STREAMS_PER_PRINCIPAL: '0', SVC_EVENT_STREAMS_PER_PROJECT: '0', ...REQUEST_LIMITS_OFF };
      const deps = await createAppDeps({ settings: parseSettings({ SVC_DATA_DIR: dataDir, SVC_LOG_LEVEL: 'error', ...limitsOff }), logger, database });
      const app = createApp(deps);
      const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
      const baselineClients = new Set<http.ServerResponse>();
      const baseline = http.createServer((_request, response) => {
        response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
        response.flushHeaders();
        baselineClients.add(response);
        response.on('close', () => baselineClients.delete(response));
      });
      try {
        await new Promise<void>((resolve) => server.once('listening', resolve));
        await new Promise<void>((resolve) => baseline.listen(0, '127.0.0.1', resolve));
        const { projectId, organizationId, apiKey } = await developmentApiKey(app);
        const ctx = benchContext(database);
        const aggregateId = randomUUID();
        const append = (i: number) =>
          appendProductEvent(ctx, { organizationId, projectId, aggregateType: 'run', aggregateId, kind: 'run.progressed', publicPayload: { i } });

        const appPort = (server.address() as AddressInfo).port;
        const ours = await measure(
          settings,
          projectId,
          (after) => ({
            port: appPort,
            path: `/v1/projects/${projectId}/events`,
            headers: { authorization: `Bearer ${apiKey}`, accept: 'text/event-stream', 'last-event-id': encodeEventCursor(projectId, after) },
          }),
          append,
          async () => {
            while (deps.eventTail.stats().subscribers < settings.clients) await sleep(10);
          },
          await latestProjectPosition({ db: database.db, input: { projectId } }),
        );
        const basePort = (baseline.address() as AddressInfo).port;
        const raw = await measure(
          settings,
          projectId,
          () => ({ port: basePort, path: '/', headers: {} }),
          async (i) => {
            const event = await append(i);
            const frame = Buffer.from(frameOf(event));
            for (const client of baselineClients) client.write(frame);
            return event;
          },
          async () => {
            while (baselineClients.size < settings.clients) await sleep(10);
          },
          ours.position,
        );
        const name = (what: string) => `SSE commit-to-client latency ${what}, ${settings.clients} clients`;
        return [
          { name: name('p50'), unit: 'ms', value: ours.p50, baseline: raw.p50, ratio: ours.p50 / raw.p50, target: 1.5, better: 'lower' },
          { name: name('p99'), unit: 'ms', value: ours.p99, baseline: raw.p99, ratio: ours.p99 / raw.p99, target: 1.5, better: 'lower' },
        ];
      } finally {
        baseline.closeAllConnections();
        baseline.close();
        await deps.eventTail.stop();
        (server as http.Server).closeAllConnections();
        server.close();
        await database.close();
      }
    });
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Logs in as the development owner and creates a `run:read` key, as an integration would. */
async function developmentApiKey(app: ReturnType<typeof createApp>) {
  const origin = 'http://localhost:8080';
  const login = await app.request('/v1/auth/development/login', { method: 'POST', headers: { origin } });
  if (login.status !== 200) throw new Error(`development login failed: ${login.status}`);
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
  const { context } = (await login.json()) as { context: { project: { id: string }; organization: { id: string } } };
  const created = await app.request(`/v1/projects/${context.project.id}/api-keys`, {
    method: 'POST',
    headers: { origin, cookie, 'content-type': 'application/json', 'idempotency-key': randomBytes(8).toString('hex') },
    body: JSON.stringify({ name: 'sse bench', scopes: ['run:read'] }),
  });
  if (created.status !== 201) throw new Error(`api key creation failed: ${created.status} ${await created.text()}`);
  const { secret } = (await created.json()) as { secret: string };
  return { projectId: context.project.id, organizationId: context.organization.id, apiKey: secret };
}

if (import.meta.main) {
  printRecords(await run());
}
