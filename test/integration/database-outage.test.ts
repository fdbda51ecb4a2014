import { randomBytes, randomUUID } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { FAKE_KEYS, startFakeModelServers, type FakeModelServers } from '../fixtures/model-vendors/chat-server.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../fixtures/webhook-receiver/receiver.ts';
import { readFeed } from '../support/feed-reader.ts';
import { createProcessDatabase, developmentApiKey } from '../support/process-bootstrap.ts';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts';
import { killProcess, startApiProcess, startWorkerProcess, waitFor } from '../support/worker-process.ts';

/**
 * PostgreSQL unreachable for 10 s in the middle of runs, webhook delivery and SSE streaming
 * (issue 16 point 2): the API and the worker reach the database through a TCP proxy the test
 * cuts. Meanwhile the API answers 503 `service_unavailable` with `Retry-After` and no SQL in the
 * body; afterwards every run settles exactly once, the event log has no gap and no duplicate,
 * the webhook delivers every event once in log order, and a feed reader resuming with
 * `Last-Event-ID` sees every position once.
 */
const provided = inject('database');
const RUNS = 6;
let beginOutage = () => {};
const outageBegun = new Promise<void>((resolve) => (beginOutage = resolve));

let fakes: FakeModelServers;
let receiver: WebhookReceiver;
let database: Awaited<ReturnType<typeof createProcessDatabase>>;
let sql: postgres.Sql;
let proxy: TcpProxy;
let api: { url: string; child: ChildProcess };
let worker: ChildProcess;
let workerLog = '';
const dataDirs: string[] = [];
let key = '';
let projectId = '';

const request = async (method: string, pathname: string, body?: unknown, idempotencyKey?: string) => {
  const response = await fetch(`${api.url}/v1/projects/${projectId}${pathname}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      ...(method === 'GET' ? {} : { 'idempotency-key': idempotencyKey ?? randomUUID() }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    text,
    body: (() => {
      try {
        return JSON.parse(text);
      } catch {
        return null;
      }
    })() as any,
  };
};

describe.skipIf(provided.kind !== 'postgres')('database outage', () => {
  beforeAll(async () => {
    if (provided.kind !== 'postgres') return;
    fakes = await startFakeModelServers();
    // Every run's model call is held until the outage has begun, so that it lands in the middle of
    // them (however long the runs took to start), then answers during it.
    fakes.vendor_a.defaultReply = (_request, text) => ({ text: `echo: ${text}`, delayMs: 1_500, heldUntil: outageBegun });
    receiver = await startWebhookReceiver();
    database = await createProcessDatabase(provided, 'outage');
    const direct = new URL(database.url);
    sql = database.sql;
    proxy = await startTcpProxy(`${direct.hostname}:${direct.port || '5432'}`);
    const proxied = new URL(direct.toString());
    proxied.host = proxy.address;
    const env = { ...fakes.env, SVC_CREDENTIAL_ENCRYPTION_KEY: randomBytes(32).toString('base64'), SVC_OUTBOUND_ALLOW_PRIVATE_NETWORK: 'true' };
    const dataDir = () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-outage-'));
      dataDirs.push(dir);
      return dir;
    };
    const taskQueue = `outage-${randomUUID()}`;
    api = await startApiProcess({ databaseUrl: proxied.toString(), taskQueue, dataDir: dataDir(), env });
    worker = await startWorkerProcess({ databaseUrl: proxied.toString(), taskQueue, dataDir: dataDir(), env });
    worker.stdout!.on('data', (chunk) => (workerLog += chunk));
    worker.stderr!.on('data', (chunk) => (workerLog += chunk));

    ({ key, projectId } = await developmentApiKey(api.url, 'outage'));
  }, 180_000);

  afterAll(async () => {
    for (const child of [api?.child, worker]) if (child) await killProcess(child);
    await proxy?.close();
    await database?.drop();
    await fakes?.close();
    await receiver?.close();
    for (const dir of dataDirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('answers 503 while the database is gone, then loses and duplicates nothing', async () => {
    const provider = await request('POST', '/model-providers', { key: 'openai', displayName: 'OpenAI', providerType: 'vendor_a', apiKey: FAKE_KEYS.vendor_a });
    expect(provider.status).toBe(201);
    expect(
      (await request('POST', '/model-presets', { key: 'fast', displayName: 'Fast', providerId: provider.body.id, model: 'vendor_a/gpt-5.1', routing: {} }))
        .status,
    ).toBe(201);
    expect(
      (
        await request('POST', '/event-webhooks', {
          displayName: 'Receiver',
          endpointUrl: receiver.url,
          signingSecret: `whsec_${randomBytes(24).toString('base64')}`,
        })
      ).status,
    ).toBe(201);
    const agent = await request('POST', '/agents', {
      name: 'Outage',
      initialConfig: { systemPrompt: 'You are a helpful assistant.', modelPreset: 'fast', limits: { maxTurns: 4 } },
    });
    expect(agent.status).toBe(201);
    const feed = readFeed({ baseUrl: api.url, projectId, apiKey: key, resume: true });

    const runIds: string[] = [];
    for (let i = 0; i < RUNS; i++) {
      const session = await request('POST', '/sessions', { agentId: agent.body.id, initialMessage: `Run ${i}` });
      expect(session.status).toBe(201);
      runIds.push(session.body.latestRunId);
    }
    await waitFor(
      'the runs to be mid-call',
      async () => (await sql`select count(*)::int as n from model_invocations where status = 'started'`)[0]!.n >= RUNS / 2 || null,
      60_000,
    );

    proxy.cut();
    beginOutage();
    const cutAt = Date.now();
    const refusedKey = `during-outage-${randomUUID()}`;
    const refusals: Array<Awaited<ReturnType<typeof request>>> = [];
    while (Date.now() - cutAt < 10_000) {
      refusals.push(await request('GET', '/agents'));
      refusals.push(await request('POST', '/sessions', { agentId: agent.body.id, initialMessage: 'During the outage' }, refusedKey));
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
    for (const refused of refusals) {
      expect(refused.status, refused.text).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('5');
      expect(refused.body.error).toMatchObject({
        code: 'service_unavailable',
        message: 'The database is unavailable; retry shortly',
        requestId: refused.headers.get('x-request-id'),
      });
      expect(refused.text).not.toMatch(/select|insert|update|from "|postgres/i);
    }
    proxy.restore();

    // The refused creation, retried with its key, creates its session once.
    const retried = await waitFor(
      'the API to answer again',
      async () => {
        const answer = await request('POST', '/sessions', { agentId: agent.body.id, initialMessage: 'During the outage' }, refusedKey);
        return answer.status === 201 ? answer : null;
      },
      30_000,
    );
    runIds.push(retried.body.latestRunId);
    const [sessions] = await sql`select count(*)::int as n from sessions`;
    expect(sessions!.n).toBe(RUNS + 1);

    const settled = await waitFor(
      'every run to settle',
      async () => {
        const states = await sql`select state from runs where id in ${sql(runIds)}`;
        return states.length === runIds.length && states.every((row) => row.state === 'completed') ? true : null;
      },
      120_000,
    ).catch(async (error: Error) => {
      const runs =
        await sql`select r.id, r.state, r.updated_at, (select json_agg(json_build_object('attempt', m.attempt, 'status', m.status)) from model_invocations m where m.run_id = r.id) as calls from runs r where r.id in ${sql(runIds)}`;
      const problems = workerLog
        .split('\n')
        .filter((line) => /"level":"(warn|error)"/.test(line))
        .slice(-15);
      throw new Error(`${error.message}: ${JSON.stringify(runs)}\n${problems.join('\n')}`);
    });
    expect(settled).toBe(true);
    const settledEvents = await sql`select aggregate_id, count(*)::int as n from product_events where kind = 'run.completed' group by aggregate_id`;
    expect(settledEvents).toHaveLength(runIds.length);
    expect(settledEvents.every((row) => row.n === 1)).toBe(true);
    const assistantReplies = await sql`select run_id, count(*)::int as n from messages where role = 'assistant' group by run_id`;
    expect(assistantReplies.every((row) => row.n === 1)).toBe(true);
    const positions = (await sql`select project_position from product_events where project_id = ${projectId} order by project_position`).map((row) =>
      Number(row.project_position),
    );
    expect(positions).toEqual(positions.map((_, index) => index + 1));

    // The webhook resumes from its cursor: every event in exactly one batch, in log order.
    await waitFor(
      'the webhook to catch up',
      async () => new Set(receiver.requests.flatMap((r) => r.body?.data?.events?.map((event: any) => event.id) ?? [])).size >= positions.length || null,
      60_000,
    );
    const batches = new Map<string, string[]>();
    for (const received of receiver.requests)
      batches.set(
        String(received.headers['webhook-id']),
        received.body.data.events.map((event: any) => event.id),
      );
    const inLogOrder = (await sql`select id from product_events where project_id = ${projectId} order by project_position`).map((row) => row.id as string);
    expect([...batches.values()].flat()).toEqual(inLogOrder);

    // The feed reader, resuming with Last-Event-ID whenever its stream broke, saw each position once.
    await waitFor('the feed to catch up', async () => feed.frames.length >= positions.length || null, 30_000);
    feed.stop();
    expect(feed.frames.map((frame) => frame.position)).toEqual(positions);
  }, 240_000);
});
