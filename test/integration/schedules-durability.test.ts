import { randomBytes, randomUUID } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { temporalScheduleId } from '../../domain/schedules/workflow.ts';
import { FAKE_KEYS, startFakeModelServers, type FakeModelServers } from '../fixtures/model-vendors/chat-server.ts';
import { createProcessDatabase, developmentApiKey } from '../support/process-bootstrap.ts';
import { killProcess, startApiProcess, startWorkerProcess, waitFor } from '../support/worker-process.ts';

/**
 * A schedule across a SIGKILL of the worker and a restart of the API (issue 35): every 2 s, with
 * `allow_all` so that each scheduled time is its own firing. While the worker is dead, Temporal
 * keeps starting firing workflows (they wait on the task queue); once a new worker polls, each
 * runs, and a firing the kill interrupted runs again and finds its record. In the end every
 * action Temporal took has exactly one firing row, each scheduled time at most one, and each
 * firing exactly one run. Separate OS processes need a PostgreSQL server.
 */
const provided = inject('database');
const temporalAddress = inject('temporal').address;

let fakes: FakeModelServers;
let database: Awaited<ReturnType<typeof createProcessDatabase>>;
let sql: postgres.Sql;
let connection: Connection;
let client: Client;
let key = '';
let projectId = '';
let apiUrl = '';
let api: ChildProcess;
let worker: ChildProcess;
const children: ChildProcess[] = [];
const dataDirs: string[] = [];
const taskQueue = `schedules-durability-${randomUUID()}`;
const credentialKey = randomBytes(32).toString('base64');
// Firings every 2 s: this server allows intervals from 1 s (the default minimum is 60 s).
const env = () => ({ ...fakes.env, SVC_CREDENTIAL_ENCRYPTION_KEY: credentialKey, SVC_SCHEDULE_MIN_INTERVAL_SECONDS: '1' });

const dataDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-schedules-'));
  dataDirs.push(dir);
  return dir;
};

async function startApi() {
  const started = await startApiProcess({ databaseUrl: database.url, taskQueue, dataDir: dataDir(), env: env() });
  children.push(started.child);
  api = started.child;
  apiUrl = started.url;
}

async function startWorker() {
  worker = await startWorkerProcess({ databaseUrl: database.url, taskQueue, dataDir: dataDir(), env: env() });
  children.push(worker);
}

async function call(method: string, pathname: string, body?: unknown) {
  const response = await fetch(`${apiUrl}/v1/projects/${projectId}${pathname}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...(method === 'GET' ? {} : { 'idempotency-key': randomUUID() }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as any };
}

const firingsOf = (scheduleId: string) =>
  sql`select firing_key, scheduled_at, outcome, run_id, session_id from schedule_firings where schedule_id = ${scheduleId} order by scheduled_at, fired_at`;

describe.skipIf(provided.kind !== 'postgres')('a schedule across a worker SIGKILL and an API restart', () => {
  beforeAll(async () => {
    if (provided.kind !== 'postgres') return;
    fakes = await startFakeModelServers();
    database = await createProcessDatabase(provided, 'schedules');
    sql = database.sql;
    connection = await Connection.connect({ address: temporalAddress });
    client = new Client({ connection, namespace: inject('temporal').namespace });
    await startWorker();
    await startApi();
    ({ key, projectId } = await developmentApiKey(apiUrl, 'schedules'));
    const provider = await call('POST', '/model-providers', { key: 'openai', displayName: 'OpenAI', providerType: 'vendor_a', apiKey: FAKE_KEYS.vendor_a });
    expect(
      (await call('POST', '/model-presets', { key: 'fast', displayName: 'Fast', providerId: provider.body.id, model: 'vendor_a/gpt-5.1', routing: {} })).status,
    ).toBe(201);
  }, 180_000);

  afterAll(async () => {
    for (const child of children) await killProcess(child);
    await connection?.close();
    await database?.drop();
    await fakes?.close();
    for (const dir of dataDirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('loses and duplicates no firing', async () => {
    const agent = await call('POST', '/agents', {
      name: 'Durable',
      initialConfig: { systemPrompt: 'Answer briefly.', modelPreset: 'fast', limits: { maxTurns: 4 } },
    });
    const created = await call('POST', '/schedules', {
      agentId: agent.body.id,
      message: 'Tick.',
      intervalSeconds: 2,
      overlap: 'allow_all',
      catchupWindowSeconds: 60,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const scheduleId: string = created.body.id;
    await waitFor('two firings', async () => (await firingsOf(scheduleId)).length >= 2, 30_000);

    // The worker dies (a firing may be half done), and the API is replaced while it is down.
    await killProcess(worker);
    const killedAt = Date.now();
    await killProcess(api);
    await startApi();
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, 6_000 - (Date.now() - killedAt))));
    await startWorker();
    const restartedAt = Date.now();

    // The firings due while no worker ran are made once it is back (well inside the catch-up window).
    await waitFor(
      'the firings due during the outage',
      async () => {
        const during = (await firingsOf(scheduleId)).filter(
          (firing) => firing.scheduled_at.getTime() > killedAt && firing.scheduled_at.getTime() < restartedAt,
        );
        return during.length >= 2;
      },
      60_000,
    );
    expect((await call('POST', `/schedules/${scheduleId}/pause`)).status).toBe(200);

    // Every action Temporal took (with allow_all it tracks none as running) is recorded once, and its run settled.
    const handle = client.schedule.getHandle(temporalScheduleId(scheduleId));
    const runsOf = () =>
      sql`select id, session_id, state, idempotency_key from runs where project_id = ${projectId} and idempotency_key like ${`schedule-firing-${scheduleId}-%`}`;
    const taken = await waitFor(
      'every firing recorded and its run settled',
      async () => {
        const [description, firings, made] = await Promise.all([handle.describe(), firingsOf(scheduleId), runsOf()]);
        const settled = made.every((run) => ['completed', 'failed', 'cancelled', 'timed_out'].includes(run.state as string));
        return firings.length === description.info.numActionsTaken && made.length === firings.length && settled ? description.info.numActionsTaken : null;
      },
      90_000,
    );
    // Nothing more arrives later (a duplicate would).
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const firings = await firingsOf(scheduleId);
    expect(firings.length).toBe(taken);
    expect(new Set(firings.map((firing) => firing.firing_key)).size).toBe(firings.length);
    expect(new Set(firings.map((firing) => firing.scheduled_at.toISOString())).size).toBe(firings.length);
    expect(firings.every((firing) => firing.outcome === 'started')).toBe(true);

    const made = await runsOf();
    expect(made.length).toBe(firings.length);
    expect(new Set(made.map((run) => run.idempotency_key)).size).toBe(made.length);
    expect(new Set(made.map((run) => run.id))).toEqual(new Set(firings.map((firing) => firing.run_id)));
    expect(made.map((run) => run.state)).toEqual(made.map(() => 'completed'));
    expect((await call('DELETE', `/schedules/${scheduleId}`)).status).toBe(200);
  }, 240_000);
});
