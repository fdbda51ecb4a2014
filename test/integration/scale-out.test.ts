import { randomBytes, randomUUID } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { answerToolRequests, FAKE_KEYS, startFakeModelServers, type FakeModelServers } from '../fixtures/model-vendors/chat-server.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../fixtures/webhook-receiver/receiver.ts';
import { readFeed as readProjectFeed } from '../support/feed-reader.ts';
import { developmentApiKey } from '../support/process-bootstrap.ts';
import { withDatabase } from '../support/postgres-server.ts';
import { killProcess, startApiProcess, startWorkerProcess, waitFor } from '../support/worker-process.ts';

/**
 * Scale-out (issue 15 point 4): two API processes and two worker processes against one
 * PostgreSQL database and one Temporal server, all started at once on an empty database (they
 * migrate and create the installation one at a time). Runs, half of them with a caller tool, go
 * through both APIs, a third of them with a caller tool that needs an approval first, and a
 * webhook delivers the project's events; one worker and one API are killed with SIGKILL midway.
 * Every run settles exactly once, tool results are not duplicated, the webhook delivers every
 * event in exactly one batch (a retried batch keeps its id), and SSE readers on either API see the
 * same gap-free positions (the one on the killed API resumes on the other with Last-Event-ID).
 */
const provided = inject('database');
const RUNS = 200;
const SETTLED = ['completed', 'failed', 'cancelled', 'timed_out'];

type Api = { url: string; child: ChildProcess };
let fakes: FakeModelServers;
let receiver: WebhookReceiver;
let admin: postgres.Sql;
let sql: postgres.Sql;
let databaseName: string;
let apis: Api[] = [];
let workers: ChildProcess[] = [];
let key = '';
let projectId = '';
const dataDirs: string[] = [];

const request = async (api: Api, method: string, pathname: string, body?: unknown, headers: Record<string, string> = {}) => {
  const response = await fetch(`${api.url}/v1${pathname}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      ...(method === 'GET' ? {} : { 'idempotency-key': headers['idempotency-key'] ?? randomUUID() }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json().catch(() => null)) as any };
};

/** An SSE reader of the project's feed on `api` (no automatic resume: the test resumes by hand). */
const readFeed = (api: Api, lastEventId?: string) => readProjectFeed({ baseUrl: api.url, projectId, apiKey: key, ...(lastEventId ? { lastEventId } : {}) });

describe.skipIf(provided.kind !== 'postgres')('two API and two worker processes', () => {
  beforeAll(async () => {
    if (provided.kind !== 'postgres') return;
    fakes = await startFakeModelServers();
    answerToolRequests(fakes);
    receiver = await startWebhookReceiver();
    admin = postgres(provided.adminUrl, { max: 1, onnotice: () => {} });
    databaseName = `${provided.runId}_scale_${randomBytes(3).toString('hex')}`;
    await admin.unsafe(`create database "${databaseName}"`);
    const databaseUrl = withDatabase(provided.adminUrl, databaseName);
    sql = postgres(databaseUrl, { max: 2, onnotice: () => {} });
    // Request limits off: the test drives its runs and their polling as fast as it can (the
    // limits have their own test, rate-limits.test.ts).
    const env = {
      ...fakes.env,
      SVC_CREDENTIAL_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      SVC_OUTBOUND_ALLOW_PRIVATE_NETWORK: 'true',
      SVC_RATE_LIMIT_API_KEY_PER_SECOND: '0',
      SVC_RATE_LIMIT_PROJECT_PER_SECOND: '0',
    };
    const taskQueue = `scale-${randomUUID()}`;
    const dataDir = () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-scale-'));
      dataDirs.push(dir);
      return dir;
    };
    // All four at once, on an empty database: migrations and the installation's first rows
    // must not race.
    const [api1, api2, worker1, worker2] = await Promise.all([
      startApiProcess({ databaseUrl, taskQueue, dataDir: dataDir(), env }),
      startApiProcess({ databaseUrl, taskQueue, dataDir: dataDir(), env }),
      startWorkerProcess({ databaseUrl, taskQueue, dataDir: dataDir(), env }),
      startWorkerProcess({ databaseUrl, taskQueue, dataDir: dataDir(), env }),
    ]);
    apis = [api1, api2];
    workers = [worker1, worker2];

    ({ key, projectId } = await developmentApiKey(api1.url, 'scale'));
  }, 180_000);

  afterAll(async () => {
    for (const child of [...apis.map((api) => api.child), ...workers]) await killProcess(child);
    await sql?.end({ timeout: 5 });
    if (databaseName) await admin?.unsafe(`drop database if exists "${databaseName}" with (force)`);
    await admin?.end({ timeout: 5 });
    await fakes?.close();
    await receiver?.close();
    for (const dir of dataDirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('started together on an empty database: one migration history, one organization, one default project', async () => {
    const [organizations] = await sql`select count(*)::int as n from organizations`;
    const [projects] = await sql`select count(*)::int as n from projects`;
    const [installation] = await sql`select count(*)::int as n from installation`;
    expect([organizations!.n, projects!.n, installation!.n]).toEqual([1, 1, 1]);
  });

  it('runs through both APIs settle exactly once while a worker and an API are killed', async () => {
    const [api1, api2] = apis as [Api, Api];
    const p = `/projects/${projectId}`;
    const provider = await request(api1, 'POST', `${p}/model-providers`, {
      key: 'openai',
      displayName: 'OpenAI',
      providerType: 'vendor_a',
      apiKey: FAKE_KEYS.vendor_a,
    });
    expect(provider.status).toBe(201);
    expect(
      (
        await request(api2, 'POST', `${p}/model-presets`, {
          key: 'fast',
          displayName: 'Fast',
          providerId: provider.body.id,
          model: 'vendor_a/gpt-5.1',
          routing: {},
        })
      ).status,
    ).toBe(201);
    const webhook = await request(api2, 'POST', `${p}/event-webhooks`, {
      displayName: 'Receiver',
      endpointUrl: receiver.url,
      signingSecret: `whsec_${randomBytes(24).toString('base64')}`,
    });
    expect(webhook.status, JSON.stringify(webhook.body)).toBe(201);
    const lookup = {
      name: 'lookup_order',
      description: 'Looks up an order',
      owner: 'caller',
      approval: 'never',
      inputSchema: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] },
      outputSchema: { type: 'object', properties: { status: { type: 'string' } }, required: ['status'] },
    };
    const agent = await request(api1, 'POST', `${p}/agents`, {
      name: 'Scale',
      initialConfig: {
        systemPrompt: 'You are a helpful assistant.',
        modelPreset: 'fast',
        tools: [lookup, { ...lookup, name: 'cancel_order', description: 'Cancels an order', approval: 'always' }],
        limits: { maxTurns: 4, timeoutMs: 600_000 },
      },
    });
    expect(agent.status, JSON.stringify(agent.body)).toBe(201);

    const steady = readFeed(api1);
    const doomed = readFeed(api2);
    const runIds: string[] = [];
    const withTool = new Set<string>();
    const live = () => (apis[1]!.child.exitCode === null && apis[1]!.child.signalCode === null ? [api1, api2] : [api1]);
    const create = async (index: number) => {
      const api = live()[index % live().length]!;
      const tool = index % 3 === 0 ? 'lookup_order' : index % 3 === 1 ? 'cancel_order' : null;
      const message = tool ? `call ${tool} {"orderId":"A${index}"}` : `Hello ${index}`;
      const session = await request(api, 'POST', `${p}/sessions`, { agentId: agent.body.id, initialMessage: message });
      expect(session.status, JSON.stringify(session.body)).toBe(201);
      runIds.push(session.body.latestRunId);
      if (tool) withTool.add(session.body.latestRunId);
    };
    // An integrator's retry: when an API dies under a request, the same request with the same
    // Idempotency-Key goes to the other one (the stored answer is shared through the database).
    const reliably = async (api: Api, method: string, pathname: string, body: unknown, idempotencyKey: string) => {
      try {
        return await request(api, method, pathname, body, { 'idempotency-key': idempotencyKey });
      } catch {
        return request(api1, method, pathname, body, { 'idempotency-key': idempotencyKey }).catch(() => null);
      }
    };
    // Answers every pending approval and caller tool call, through whichever API is alive (the
    // project's pending work, one request per sweep). A run's execution limit is generous: a run
    // whose model call died with a worker waits out the heartbeat timeout first.
    let answering = true;
    const answered = new Set<string>();
    const answers = (async () => {
      while (answering) {
        const api = live()[Math.floor(Math.random() * live().length)]!;
        const pending = await request(api, 'GET', `${p}/pending-work`).catch(() => null);
        for (const approval of pending?.body?.approvals ?? []) {
          await reliably(api, 'POST', `${p}/approvals/${approval.id}/decision`, { status: 'approved' }, `decide-${approval.id}`);
        }
        for (const call of pending?.body?.toolCalls ?? []) {
          if (call.status !== 'pending' || answered.has(call.id)) continue;
          const claim = await reliably(api, 'POST', `${p}/tool-calls/${call.id}/claim`, undefined, `claim-${call.id}`);
          if (claim?.status !== 200) continue;
          const result = await reliably(
            api,
            'POST',
            `${p}/tool-calls/${call.id}/result`,
            { fence: claim.body.fence, safeResult: { version: 1, status: 'success', value: { status: 'shipped' } } },
            `result-${call.id}`,
          );
          if (result?.status === 202) answered.add(call.id);
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();

    for (let index = 0; index < RUNS / 2; index += 4) await Promise.all([0, 1, 2, 3].map((offset) => create(index + offset)));
    // Midway: one worker and one API die without warning.
    await killProcess(workers[0]!);
    await killProcess(apis[1]!.child);
    for (let index = RUNS / 2; index < RUNS; index += 4) await Promise.all([0, 1, 2, 3].map((offset) => create(index + offset)));

    const states = await waitFor(
      'every run to settle',
      async () => {
        const all = await Promise.all(runIds.map(async (runId) => (await request(api1, 'GET', `${p}/runs/${runId}`)).body.state as string));
        return all.every((state) => SETTLED.includes(state)) ? all : null;
      },
      150_000,
    );
    answering = false;
    await answers;
    const unfinished = runIds.filter((_, index) => states[index] !== 'completed');
    const diagnosis = await Promise.all(
      unfinished.map(async (runId) => ({
        run: (await request(api1, 'GET', `${p}/runs/${runId}`)).body,
        toolCalls: (await request(api1, 'GET', `${p}/tool-calls?runId=${runId}`)).body.data,
        approvals: (await request(api1, 'GET', `${p}/approvals?runId=${runId}`)).body.data,
      })),
    );
    expect(unfinished, JSON.stringify(diagnosis, null, 1).slice(0, 4000)).toEqual([]);

    // Each run settled once, each tool call has one result, and the log is gap-free.
    const settled = await sql`select aggregate_id, count(*)::int as n from product_events where kind = 'run.completed' group by aggregate_id`;
    expect(settled.length).toBe(RUNS);
    expect(settled.every((row) => row.n === 1)).toBe(true);
    const toolMessages =
      await sql`select r.id as run_id, count(m.*)::int as n from runs r join messages m on m.thread_id = r.thread_id and m.role = 'tool' group by r.id`;
    expect(toolMessages.length).toBe(withTool.size);
    expect(toolMessages.every((row) => row.n === 1)).toBe(true);
    const positions = (await sql`select project_position::int as position from product_events where project_id = ${projectId} order by project_position`).map(
      (row) => row.position as number,
    );
    expect(positions).toEqual(positions.map((_, index) => index + 1));

    // The webhook: every event in exactly one batch (retries of a batch keep its webhook-id), in order.
    // Two minutes: on a loaded host the killed worker's delivery workflow takes a while to move.
    await waitFor(
      'the webhook to catch up',
      async () => new Set(receiver.requests.flatMap((r) => r.body.data.events.map((event: any) => event.id))).size >= positions.length || null,
      120_000,
    );
    const batches = new Map<string, string[]>();
    for (const received of receiver.requests)
      batches.set(
        String(received.headers['webhook-id']),
        received.body.data.events.map((event: any) => event.id),
      );
    const delivered = [...batches.values()].flat();
    expect(delivered.length).toBe(positions.length);
    const inLogOrder = (await sql`select id from product_events where project_id = ${projectId} order by project_position`).map((row) => row.id as string);
    expect(delivered).toEqual(inLogOrder);

    // SSE: the reader on the surviving API saw every position in order; the one on the killed
    // API resumes on the survivor from its last id and ends with the same sequence.
    await waitFor('the feed to catch up', async () => steady.frames.length >= positions.length || null, 30_000);
    // The reader on the killed API was cut off partway.
    expect(doomed.frames.length).toBeGreaterThan(0);
    expect(doomed.frames.length).toBeLessThan(positions.length);
    const last = doomed.frames.at(-1)?.id;
    const resumed = readFeed(api1, last);
    await waitFor('the resumed feed to catch up', async () => doomed.frames.length + resumed.frames.length >= positions.length || null, 30_000);
    steady.stop();
    resumed.stop();
    expect(steady.frames.map((frame) => frame.position)).toEqual(positions);
    expect([...doomed.frames, ...resumed.frames].map((frame) => frame.position)).toEqual(positions);
  }, 300_000);
});
