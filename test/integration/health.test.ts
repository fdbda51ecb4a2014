import { randomBytes, randomUUID } from 'node:crypto';
import { spawnSync, type ChildProcess } from 'node:child_process';
import * as os from 'node:os';
import * as path from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createApp } from '../../api/app.ts';
import { createLogger } from '../../config/logger.ts';
import { parseSettings } from '../../config/settings.ts';
import { openDatabase, type DatabaseHandle } from '../../db/client.ts';
import { databaseProbes } from '../../db/health.ts';
import { createAppDeps } from '../../scripts/app-deps.ts';
import type { AppDeps } from '../../api/deps.ts';
import { connectTemporal, type TemporalClientHandle } from '../../temporal/client.ts';
import { temporalProbe } from '../../temporal/health.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { freePort } from '../support/http-server.ts';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts';
import { killProcess, startApiProcess, startWorkerProcess } from '../support/worker-process.ts';

/**
 * `GET /healthz` and `GET /readyz` (issue 34): the API's, with its database and Temporal reached
 * through fault-injection proxies, and the worker process's on SVC_WORKER_METRICS_PORT, draining
 * after SIGTERM.
 */
const logger = createLogger({ level: 'silent' });
let database: TestDatabase;
let proxiedDatabase: DatabaseHandle;
let databaseProxy: TcpProxy;
let temporalProxy: TcpProxy;
let temporal: TemporalClientHandle;
let deps: AppDeps;
let app: ReturnType<typeof createApp>;

const readyz = async () => {
  const response = await app.request('/readyz');
  return { status: response.status, body: (await response.json()) as { status: string; checks: Record<string, string> } };
};

// Fault injection needs a server to put a proxy in front of (as database-outage.test.ts).
const onPostgres = inject('database').kind === 'postgres';
/**
 * How long a drained process keeps answering before it exits. What the tests check inside it (a
 * poll, a spawned health check, API calls) must fit in it on a slow host: 10 s.
 */
const GRACE_MS = 10_000;

beforeAll(async () => {
  if (!onPostgres) return;
  database = await createTestDatabase();
  if (!database.url) throw new Error('no PostgreSQL URL');
  const direct = new URL(database.url);
  databaseProxy = await startTcpProxy(`${direct.hostname}:${direct.port || '5432'}`);
  const proxied = new URL(database.url);
  proxied.host = databaseProxy.address;
  proxiedDatabase = await openDatabase({ driver: 'postgres', url: proxied.toString(), maxConnections: 4 });
  const provided = inject('temporal');
  temporalProxy = await startTcpProxy(provided.address);
  temporal = await connectTemporal({ address: temporalProxy.address, namespace: provided.namespace });
  const settings = parseSettings({ SVC_DATA_DIR: path.join(os.tmpdir(), `svc-health-${randomBytes(4).toString('hex')}`), SVC_LOG_LEVEL: 'silent' });
  deps = await createAppDeps({ settings, logger, database: proxiedDatabase, probes: { temporal: temporalProbe(temporal.client) } });
  app = createApp(deps);
}, 60_000);

afterAll(async () => {
  await deps?.eventTail.stop();
  await deps?.messageDeltas.stop();
  await temporal?.close();
  await proxiedDatabase?.close();
  await databaseProxy?.close();
  await temporalProxy?.close();
  await database?.drop();
});

describe.skipIf(!onPostgres)('the API process', () => {
  it('answers /healthz without credentials, and /readyz 200 with every dependency ok', async () => {
    const health = await app.request('/healthz');
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    expect(await readyz()).toEqual({ status: 200, body: { status: 'ready', checks: { database: 'ok', migrations: 'ok', temporal: 'ok' } } });
    // Probes are read-only: another method is the API's ordinary 404 envelope.
    const posted = await app.request('/readyz', { method: 'POST' });
    expect(posted.status).toBe(404);
    expect(await posted.json()).toMatchObject({ error: { code: 'not_found' } });
  });

  it.each([
    { what: 'PostgreSQL', proxy: () => databaseProxy, failing: { database: 'failing', migrations: 'failing', temporal: 'ok' } },
    { what: 'Temporal', proxy: () => temporalProxy, failing: { database: 'ok', migrations: 'ok', temporal: 'failing' } },
  ])('turns 503 naming what fails while $what is cut, and 200 once it is back', async ({ proxy, failing }) => {
    proxy().cut();
    try {
      expect(await readyz()).toEqual({ status: 503, body: { status: 'not_ready', checks: failing } });
    } finally {
      proxy().restore();
    }
    await expect.poll(async () => (await readyz()).status, { timeout: 15_000, interval: 250 }).toBe(200);
  });

  it('names pending migrations: a database this code has not migrated is not ready', async () => {
    const admin = postgres(database.url!, { max: 1, onnotice: () => {} });
    const name = `health_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
    await admin.unsafe(`create database "${name}"`);
    const url = new URL(database.url!);
    url.pathname = `/${name}`;
    const empty = await openDatabase({ driver: 'postgres', url: url.toString(), maxConnections: 1 });
    try {
      const probes = databaseProbes(empty);
      await expect(probes.database()).resolves.toBeUndefined();
      await expect(probes.migrations()).rejects.toThrow();
    } finally {
      await empty.close();
      await admin.unsafe(`drop database if exists "${name}" with (force)`);
      await admin.end({ timeout: 5 });
    }
  });
});

describe.skipIf(!onPostgres)('the worker process', () => {
  let worker: ChildProcess | undefined;
  afterAll(async () => {
    if (worker) await killProcess(worker);
  });

  it('serves /healthz and /readyz on SVC_WORKER_METRICS_PORT, and reports draining from SIGTERM until it stops', async () => {
    const port = await freePort();
    worker = await startWorkerProcess({
      databaseUrl: database.url!,
      taskQueue: `health-${randomUUID()}`,
      dataDir: path.join(os.tmpdir(), `svc-health-worker-${randomBytes(4).toString('hex')}`),
      env: { SVC_WORKER_METRICS_PORT: String(port), SVC_SHUTDOWN_GRACE_MS: String(GRACE_MS) },
    });
    const base = `http://127.0.0.1:${port}`;
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', checks: { database: 'ok', migrations: 'ok', temporal: 'ok' } });

    const exited = new Promise<number | null>((resolve) => worker!.once('exit', (code) => resolve(code)));
    worker.kill('SIGTERM');
    // Within the grace time the port still answers, not ready.
    await expect.poll(async () => (await fetch(`${base}/readyz`)).status, { timeout: GRACE_MS / 2, interval: 100 }).toBe(503);
    expect(await (await fetch(`${base}/readyz`)).json()).toMatchObject({ status: 'draining' });
    expect(await exited).toBe(0);
  }, 90_000);
});

describe.skipIf(!onPostgres)('the API process, drained', () => {
  let api: ChildProcess | undefined;
  afterAll(async () => {
    if (api) await killProcess(api);
  });

  it('reports draining from SIGTERM for SVC_SHUTDOWN_GRACE_MS while it still answers, then exits 0', async () => {
    const started = await startApiProcess({
      databaseUrl: database.url!,
      taskQueue: `health-${randomUUID()}`,
      dataDir: path.join(os.tmpdir(), `svc-health-api-${randomBytes(4).toString('hex')}`),
      env: { SVC_SHUTDOWN_GRACE_MS: String(GRACE_MS) },
    });
    api = started.child;
    expect((await fetch(`${started.url}/readyz`)).status).toBe(200);
    // The image's HEALTHCHECK command, as Docker runs it in the container.
    const port = new URL(started.url).port;
    const healthcheck = (env: Record<string, string>) =>
      spawnSync(process.execPath, ['scripts/healthcheck.ts'], { env: { ...process.env, ...env }, encoding: 'utf8' }).status;
    expect(healthcheck({ PORT: port })).toBe(0);
    // A worker's container: nothing on PORT, its probes on SVC_WORKER_METRICS_PORT (here the API's).
    expect(healthcheck({ PORT: String(await freePort()), SVC_WORKER_METRICS_PORT: port })).toBe(0);
    expect(healthcheck({ PORT: String(await freePort()) })).toBe(1);
    const exited = new Promise<number | null>((resolve) => api!.once('exit', (code) => resolve(code)));
    api.kill('SIGTERM');
    await expect.poll(async () => (await fetch(`${started.url}/readyz`)).status, { timeout: GRACE_MS / 2, interval: 100 }).toBe(503);
    expect(await (await fetch(`${started.url}/readyz`)).json()).toMatchObject({ status: 'draining' });
    expect(healthcheck({ PORT: port })).toBe(1);
    // Still serving the API meanwhile: work in flight is not cut off by the probe's answer.
    expect((await fetch(`${started.url}/healthz`)).status).toBe(200);
    expect(await exited).toBe(0);
  }, 90_000);
});
