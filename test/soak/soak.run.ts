import { randomBytes, randomUUID } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { answerToolRequests, FAKE_KEYS, startFakeModelServers, type FakeModelServers } from '../fixtures/model-vendors/chat-server.ts';
import { createProcessDatabase, developmentApiKey } from '../support/process-bootstrap.ts';
import { killProcess, startApiProcess, startWorkerProcess, waitFor } from '../support/worker-process.ts';

/**
 * `npm run test:soak` (issue 16 point 9): a mixed load on an API process and a worker process
 * for SOAK_MINUTES (default 10): plain one-turn runs, runs with a caller tool and runs whose
 * tool needs an approval, from SOAK_CLIENTS closed-loop clients (each follows its run to the
 * end before starting the next), while the worker is killed with
 * SIGKILL and restarted at random every 30-90 s. Then every run must be accounted for (settled,
 * exactly once), and the report gives the API's and the worker's memory growth and latency
 * percentiles. Needs PostgreSQL (two processes cannot share PGlite).
 */
const provided = inject('database');
const MINUTES = Number(process.env.SOAK_MINUTES ?? 10);
const CLIENTS = Number(process.env.SOAK_CLIENTS ?? 8);
const SETTLED = ['completed', 'failed', 'cancelled', 'timed_out'];

let fakes: FakeModelServers;
let database: Awaited<ReturnType<typeof createProcessDatabase>>;
let sql: postgres.Sql;
let databaseUrl: string;
let api: { url: string; child: ChildProcess };
let worker: ChildProcess;
const dataDirs: string[] = [];
const taskQueue = `soak-${randomUUID()}`;
let env: Record<string, string>;
let key = '';
let projectId = '';

const dataDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-soak-'));
  dataDirs.push(dir);
  return dir;
};

const request = async (method: string, pathname: string, body?: unknown) => {
  const response = await fetch(`${api.url}/v1/projects/${projectId}${pathname}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...(method === 'GET' ? {} : { 'idempotency-key': randomUUID() }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json().catch(() => null)) as any };
};

/** Resident memory of a process, in MiB (from /proc). */
function rssMiB(pid: number | undefined): number | null {
  if (!pid) return null;
  try {
    const line = fs
      .readFileSync(`/proc/${pid}/status`, 'utf8')
      .split('\n')
      .find((entry) => entry.startsWith('VmRSS:'));
    return line ? Number(line.replace(/\D+/g, '')) / 1024 : null;
  } catch {
    return null;
  }
}

const percentile = (values: number[], p: number) => {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};

describe.skipIf(provided.kind !== 'postgres')('soak', () => {
  beforeAll(async () => {
    if (provided.kind !== 'postgres') return;
    fakes = await startFakeModelServers();
    answerToolRequests(fakes);
    database = await createProcessDatabase(provided, 'soak');
    databaseUrl = database.url;
    sql = database.sql;
    env = {
      ...fakes.env,
      SVC_CREDENTIAL_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      SVC_RATE_LIMIT_API_KEY_PER_SECOND: '0',
      SVC_RATE_LIMIT_PROJECT_PER_SECOND: '0',
    };
    api = await startApiProcess({ databaseUrl, taskQueue, dataDir: dataDir(), env });
    worker = await startWorkerProcess({ databaseUrl, taskQueue, dataDir: dataDir(), env });
    ({ key, projectId } = await developmentApiKey(api.url, 'soak'));
  }, 180_000);

  afterAll(async () => {
    for (const child of [api?.child, worker]) if (child) await killProcess(child);
    await database?.drop();
    await fakes?.close();
    for (const dir of dataDirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  it(
    `runs a mixed load for ${MINUTES} min with random worker restarts and accounts for every run`,
    async () => {
      const provider = await request('POST', '/model-providers', {
        key: 'openai',
        displayName: 'OpenAI',
        providerType: 'vendor_a',
        apiKey: FAKE_KEYS.vendor_a,
      });
      expect(
        (await request('POST', '/model-presets', { key: 'fast', displayName: 'Fast', providerId: provider.body.id, model: 'vendor_a/gpt-5.1', routing: {} }))
          .status,
      ).toBe(201);
      const lookup = {
        name: 'lookup_order',
        description: 'Looks up an order',
        owner: 'caller',
        approval: 'never',
        inputSchema: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] },
        outputSchema: { type: 'object', properties: { status: { type: 'string' } }, required: ['status'] },
      };
      const agent = await request('POST', '/agents', {
        name: 'Soak',
        initialConfig: {
          systemPrompt: 'You are a helpful assistant.',
          modelPreset: 'fast',
          tools: [lookup, { ...lookup, name: 'cancel_order', description: 'Cancels an order', approval: 'always' }],
          limits: { maxTurns: 4 },
        },
      });
      expect(agent.status).toBe(201);

      const endsAt = Date.now() + MINUTES * 60_000;
      const runs = new Map<string, { createdAt: number; settledAt: number | null; kind: string }>();
      const postLatencies: number[] = [];
      const rss = { api: [] as number[], worker: [] as number[] };
      let restarts = 0;
      let creationFailures = 0;

      const sampler = setInterval(() => {
        const a = rssMiB(api.child.pid);
        const w = rssMiB(worker.pid);
        if (a !== null) rss.api.push(a);
        if (w !== null) rss.worker.push(w);
      }, 5_000);

      // The worker dies without warning every 30-90 s and comes back.
      let restarting = true;
      const restarter = (async () => {
        while (restarting && Date.now() < endsAt) {
          await new Promise((resolve) => setTimeout(resolve, 30_000 + Math.random() * 60_000));
          if (!restarting || Date.now() >= endsAt) break;
          await killProcess(worker);
          worker = await startWorkerProcess({ databaseUrl, taskQueue, dataDir: dataDir(), env });
          restarts += 1;
        }
      })();

      // Caller tools and approvals are answered by an integration loop.
      let answering = true;
      const answers = (async () => {
        while (answering) {
          const pending = await request('GET', '/pending-work').catch(() => null);
          for (const approval of pending?.body?.approvals ?? [])
            await request('POST', `/approvals/${approval.id}/decision`, { status: 'approved' }).catch(() => null);
          for (const call of pending?.body?.toolCalls ?? []) {
            if (call.status !== 'pending') continue;
            const claim = await request('POST', `/tool-calls/${call.id}/claim`).catch(() => null);
            if (claim?.status !== 200) continue;
            await request('POST', `/tool-calls/${call.id}/result`, {
              fence: claim.body.fence,
              safeResult: { version: 1, status: 'success', value: { status: 'shipped' } },
            }).catch(() => null);
          }
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
      })();

      // Closed-loop clients: each starts a run, follows it until it settles, then starts the next,
      // so the load is what the installation sustains rather than a growing backlog.
      const settleLatencies: number[] = [];
      let index = 0;
      await Promise.all(
        Array.from({ length: CLIENTS }, async () => {
          while (Date.now() < endsAt) {
            const n = index++;
            const kind = n % 3 === 0 ? 'caller_tool' : n % 3 === 1 ? 'approval' : 'plain';
            const message =
              kind === 'caller_tool' ? `call lookup_order {"orderId":"A${n}"}` : kind === 'approval' ? `call cancel_order {"orderId":"A${n}"}` : `Hello ${n}`;
            const began = performance.now();
            const session = await request('POST', '/sessions', { agentId: agent.body.id, initialMessage: message }).catch(() => null);
            if (session?.status !== 201) {
              creationFailures += 1;
              await new Promise((resolve) => setTimeout(resolve, 1_000));
              continue;
            }
            postLatencies.push(performance.now() - began);
            const runId = session.body.latestRunId as string;
            runs.set(runId, { createdAt: Date.now(), settledAt: null, kind });
            for (;;) {
              await new Promise((resolve) => setTimeout(resolve, 100));
              const run = await request('GET', `/runs/${runId}`).catch(() => null);
              if (run?.body && SETTLED.includes(run.body.state)) break;
            }
            settleLatencies.push(performance.now() - began);
          }
        }),
      );
      restarting = false;
      await restarter;

      // Settlement times, from the run rows (every run must settle after the load stops).
      await waitFor(
        'every run to settle',
        async () => {
          const rows =
            await sql`select id, state, extract(epoch from settled_at) * 1000 as settled_ms, extract(epoch from created_at) * 1000 as created_ms from runs`;
          const open = rows.filter((row) => !SETTLED.includes(row.state as string));
          return open.length === 0 ? rows : null;
        },
        300_000,
      ).catch(() => undefined);
      answering = false;
      await answers;
      clearInterval(sampler);

      const rows =
        await sql`select id, state, extract(epoch from settled_at) * 1000 as settled_ms, extract(epoch from created_at) * 1000 as created_ms from runs`;
      const byState: Record<string, number> = {};
      for (const row of rows) byState[row.state as string] = (byState[row.state as string] ?? 0) + 1;
      const settledTwice =
        await sql`select aggregate_id from product_events where kind in ('run.completed', 'run.failed', 'run.cancelled', 'run.timed_out') group by aggregate_id having count(*) > 1`;
      const unknown = rows.filter((row) => !runs.has(row.id as string)).length;
      const report = {
        minutes: MINUTES,
        clients: CLIENTS,
        workerRestarts: restarts,
        runsCreated: runs.size,
        creationFailures,
        runsInDatabase: rows.length,
        byState,
        settledMoreThanOnce: settledTwice.length,
        postSessionsMs: { p50: percentile(postLatencies, 50), p95: percentile(postLatencies, 95), p99: percentile(postLatencies, 99) },
        createToSettledMs: { p50: percentile(settleLatencies, 50), p95: percentile(settleLatencies, 95), p99: percentile(settleLatencies, 99) },
        // The worker's figures span its restarts (each incarnation starts afresh).
        apiRssMiB: { first: rss.api[0], last: rss.api.at(-1), max: Math.max(...rss.api) },
        workerRssMiB: { first: rss.worker[0], last: rss.worker.at(-1), max: Math.max(...rss.worker) },
      };
      console.log(`soak report\n${JSON.stringify(report, null, 2)}`);

      expect(rows.length).toBe(runs.size);
      expect(unknown).toBe(0);
      expect(rows.filter((row) => !SETTLED.includes(row.state as string))).toEqual([]);
      expect(settledTwice).toEqual([]);
      expect(byState.completed).toBe(rows.length);
    },
    (MINUTES + 10) * 60_000,
  );
});
