import { randomBytes, randomUUID } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { FAKE_KEYS, startFakeModelServers, type FakeModelServers } from '../fixtures/model-vendors/chat-server.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../fixtures/webhook-receiver/receiver.ts';
import { freePort } from '../support/http-server.ts';
import { createProcessDatabase, developmentApiKey } from '../support/process-bootstrap.ts';
import { startPrometheus, type PrometheusServer, type Sample } from '../support/prometheus.ts';
import { killProcess, startApiProcess, startWorkerProcess, waitFor } from '../support/worker-process.ts';

/**
 * Prometheus metrics (issue 34, part 1): an API process and a worker process, each with its
 * operator port, scraped every second by a real Prometheus while runs complete (one after a
 * retried model call), fail, wait for approval and deliver webhooks, and a second event stream is
 * refused; memory stores are written. The values Prometheus holds are what the test did.
 */
const provided = inject('database');

let fakes: FakeModelServers;
let receiver: WebhookReceiver;
let database: Awaited<ReturnType<typeof createProcessDatabase>>;
let prometheus: PrometheusServer;
let api: { url: string; child: ChildProcess };
let worker: ChildProcess;
let apiMetrics = '';
let workerMetrics = '';
let key = '';
let projectId = '';
const dataDirs: string[] = [];
const secrets = { webhook: `whsec_${randomBytes(24).toString('base64')}`, prompt: `Secret prompt ${randomUUID()}`, reply: `Secret reply ${randomUUID()}` };
const ids: string[] = [];

const request = async (method: string, pathname: string, body?: unknown) => {
  const response = await fetch(`${api.url}/v1/projects/${projectId}${pathname}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...(method === 'GET' ? {} : { 'idempotency-key': randomUUID() }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any };
};

const single = (samples: Sample[]) => (samples.length === 1 ? samples[0]!.value : null);

/** Polls `promql` until `read` of its answer equals `expected` (30 s), then asserts it (a clear diff when it never did). */
async function eventually<T>(promql: string, read: (samples: Sample[]) => T, expected: T): Promise<void> {
  let last: T | undefined;
  await prometheus.until(promql, (samples) => isDeepStrictEqual((last = read(samples)), expected)).catch(() => {});
  expect(last, promql).toEqual(expected);
}
const byLabel = (samples: Sample[], label: string) => Object.fromEntries(samples.map((sample) => [sample.labels[label], sample.value]));

describe.skipIf(provided.kind !== 'postgres')('Prometheus metrics of the API and worker processes', () => {
  let agentId = '';
  let gatedAgentId = '';
  let webhookId = '';

  beforeAll(async () => {
    if (provided.kind !== 'postgres') return;
    fakes = await startFakeModelServers();
    receiver = await startWebhookReceiver();
    database = await createProcessDatabase(provided, 'metrics');
    const [apiPort, workerPort] = [await freePort(), await freePort()];
    const env = {
      ...fakes.env,
      SVC_CREDENTIAL_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      SVC_OUTBOUND_ALLOW_PRIVATE_NETWORK: 'true',
      SVC_EVENT_STREAMS_PER_PRINCIPAL: '1',
    };
    const taskQueue = `metrics-${randomUUID()}`;
    const dataDir = () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-metrics-'));
      dataDirs.push(dir);
      return dir;
    };
    api = await startApiProcess({ databaseUrl: database.url, taskQueue, dataDir: dataDir(), env: { ...env, SVC_API_METRICS_PORT: String(apiPort) } });
    worker = await startWorkerProcess({
      databaseUrl: database.url,
      taskQueue,
      dataDir: dataDir(),
      env: { ...env, SVC_WORKER_METRICS_PORT: String(workerPort) },
    });
    apiMetrics = `http://127.0.0.1:${apiPort}/metrics`;
    workerMetrics = `http://127.0.0.1:${workerPort}/metrics`;
    prometheus = await startPrometheus({ api: `127.0.0.1:${apiPort}`, worker: `127.0.0.1:${workerPort}` });

    ({ key, projectId } = await developmentApiKey(api.url, 'metrics'));
    const provider = await request('POST', '/model-providers', { key: 'openai', displayName: 'OpenAI', providerType: 'vendor_a', apiKey: FAKE_KEYS.vendor_a });
    expect(provider.status).toBe(201);
    // Priced: 1 per million input tokens, 10 per million output tokens.
    expect(
      (
        await request('POST', '/model-presets', {
          key: 'fast',
          displayName: 'Fast',
          providerId: provider.body.id,
          model: 'vendor_a/gpt-5.1',
          routing: {},
          prices: { input: 1, output: 10 },
        })
      ).status,
    ).toBe(201);
    const agent = await request('POST', '/agents', { name: 'Plain', initialConfig: { systemPrompt: 'Answer.', modelPreset: 'fast', limits: { maxTurns: 4 } } });
    expect(agent.status, JSON.stringify(agent.body)).toBe(201);
    agentId = agent.body.id;
    const gatedTool = {
      name: 'approved_lookup',
      description: 'Looks up an order once a person approves',
      owner: 'caller',
      approval: 'always',
      inputSchema: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'], additionalProperties: false },
      outputSchema: { type: 'object', properties: { status: { type: 'string' } }, required: ['status'] },
    };
    const gated = await request('POST', '/agents', {
      name: 'Gated',
      initialConfig: { systemPrompt: 'Use the tool.', modelPreset: 'fast', tools: [gatedTool], limits: { maxTurns: 4 } },
    });
    expect(gated.status, JSON.stringify(gated.body)).toBe(201);
    gatedAgentId = gated.body.id;
    const webhook = await request('POST', '/event-webhooks', { displayName: 'Receiver', endpointUrl: receiver.url, signingSecret: secrets.webhook });
    expect(webhook.status, JSON.stringify(webhook.body)).toBe(201);
    webhookId = webhook.body.id;
  }, 180_000);

  afterAll(async () => {
    await prometheus?.close();
    for (const child of [api?.child, worker].filter(Boolean) as ChildProcess[]) await killProcess(child);
    await database?.drop();
    await fakes?.close();
    await receiver?.close();
    for (const dir of dataDirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('counts runs, model calls, approvals, webhooks, streams and refusals as Prometheus scrapes them', async () => {
    const session = async (agent: string) => {
      const created = await request('POST', '/sessions', { agentId: agent, initialMessage: secrets.prompt });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      ids.push(created.body.id, created.body.latestRunId);
      return created.body as { id: string; latestRunId: string };
    };
    const settled = (sessionId: string, state: string) =>
      waitFor(`session ${sessionId} ${state}`, async () => (await request('GET', `/sessions/${sessionId}`)).body.status === state, 60_000);

    // Completed: once at once, once after a retried (503) model call.
    fakes.vendor_a.reply({ text: secrets.reply, usage: { inputTokens: 100, outputTokens: 10 } });
    await settled((await session(agentId)).id, 'completed');
    fakes.vendor_a.fail({ status: 503 });
    fakes.vendor_a.reply({ text: secrets.reply, usage: { inputTokens: 100, outputTokens: 10 } });
    await settled((await session(agentId)).id, 'completed');
    // Failed: the provider refuses the request (not retryable).
    fakes.vendor_a.fail({ status: 400 });
    await settled((await session(agentId)).id, 'failed');
    // Waiting for approval: the model asks for a gated caller tool.
    fakes.vendor_a.reply({ toolCalls: [{ name: 'approved_lookup', arguments: { orderId: 'A-1' } }], usage: { inputTokens: 100, outputTokens: 10 } });
    await settled((await session(gatedAgentId)).id, 'waiting_for_approval');

    // One stream open (the caller's only place), a second refused with 429.
    const stream = new AbortController();
    const open = await fetch(`${api.url}/v1/projects/${projectId}/events`, {
      headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' },
      signal: stream.signal,
    });
    expect(open.status).toBe(200);
    const refused = await fetch(`${api.url}/v1/projects/${projectId}/events`, { headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' } });
    expect(refused.status).toBe(429);
    await refused.body?.cancel();
    await receiver.waitFor((requests) => requests.length > 0, 30_000);

    try {
      // Prometheus holds each target's last scrape: every figure is polled until a scrape after
      // the change shows it (a stale sample is replaced within a second or two), then compared.
      // Runs: created on the API process, settled and timed on the worker.
      await eventually('sum by (agent_id) (agent_runtime_runs_created_total)', (s) => byLabel(s, 'agent_id'), { [agentId]: 3, [gatedAgentId]: 1 });
      await eventually(
        'sum by (agent_id, state) (agent_runtime_runs_settled_total)',
        (s) => s.map((sample) => `${sample.labels.agent_id} ${sample.labels.state} ${sample.value}`).sort(),
        [`${agentId} completed 2`, `${agentId} failed 1`],
      );
      await eventually('sum by (state) (agent_runtime_run_duration_seconds_count)', (s) => byLabel(s, 'state'), { completed: 2, failed: 1 });
      await eventually('sum(agent_runtime_run_queue_seconds_count)', single, 4);
      await eventually('agent_runtime_runs_unsettled', (s) => byLabel(s, 'state'), {
        queued: 0,
        running: 0,
        waiting_for_tool: 0,
        waiting_for_approval: 1,
        retry_scheduled: 0,
      });

      // Model calls by provider type, preset and outcome; tokens of the successful ones.
      await eventually('sum by (outcome) (agent_runtime_model_calls_total{provider_type="vendor_a", preset="fast"})', (s) => byLabel(s, 'outcome'), {
        succeeded: 3,
        retryable_error: 1,
        error: 1,
      });
      await eventually('sum(agent_runtime_model_call_duration_seconds_count)', single, 5);
      await eventually('sum by (kind) (agent_runtime_model_tokens_total)', (s) => byLabel(s, 'kind'), {
        input: 300,
        output: 30,
        cache_read: 0,
        cache_write: 0,
      });
      // 300 × 1 + 30 × 10 per million.
      await eventually('sum by (preset) (agent_runtime_model_cost_total)', (s) => s.map((sample) => `${sample.labels.preset} ${sample.value.toFixed(9)}`), [
        'fast 0.000600000',
      ]);
      await eventually('count(sum by (error_code) (agent_runtime_model_call_errors_total))', single, 2);

      // The approval waits; nothing ended yet.
      await eventually('agent_runtime_approvals_pending', single, 1);
      await eventually('agent_runtime_approvals_oldest_pending_age_seconds > 0', (s) => s.length, 1);

      // Webhooks: delivered, and caught up (every committed event sent).
      await eventually('sum(agent_runtime_webhook_deliveries_total{outcome="delivered"}) > 0', (s) => s.length, 1);
      await eventually(`agent_runtime_webhook_oldest_undelivered_age_seconds{webhook_id="${webhookId}"}`, single, 0);

      // The open stream, the refused one, the API's requests by route.
      await eventually('agent_runtime_sse_connections_open{stream="events"}', single, 1);
      await eventually('sum by (limit) (agent_runtime_rate_limited_total)', (s) => byLabel(s, 'limit'), { principal_event_streams: 1 });
      await eventually('sum(agent_runtime_http_requests_total{method="POST", route="/v1/projects/:projectId/sessions", status="201"})', single, 4);

      // Each process's pool; the Temporal SDK's own worker metrics on the worker's target.
      await eventually('agent_runtime_db_pool_size', (s) => byLabel(s, 'job'), { api: 10, worker: 10 });
      const sdk = await prometheus.until('count by (job) ({__name__=~"temporal_.+"})', (s) => s.length > 0);
      expect(sdk.map((sample) => sample.labels.job)).toEqual(['worker']);
      expect(await prometheus.query('temporal_worker_task_slots_available{job="worker"}')).not.toHaveLength(0);
    } finally {
      stream.abort();
    }
    await eventually('agent_runtime_sse_connections_open{stream="events"}', single, 0);

    // Labels carry no secret, no text, no run or session id.
    const pages = await Promise.all([apiMetrics, workerMetrics].map(async (url) => (await fetch(url)).text()));
    for (const page of pages) {
      for (const secret of [key, FAKE_KEYS.vendor_a, secrets.webhook, secrets.prompt, secrets.reply, ...ids]) expect(page.includes(secret), secret).toBe(false);
    }
  }, 240_000);

  it("per project, what its memory stores hold: the sums of the stores' counters, labelled by project only", async () => {
    const store = async (name: string) => {
      const created = await request('POST', '/memory-stores', { name });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      return created.body.id as string;
    };
    const write = async (storeId: string, path: string, content: string) => {
      const created = await request('POST', `/memory-stores/${storeId}/memories`, { path, content });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      return created.body.id as string;
    };
    const names = [`Notes ${randomUUID()}`, `Log ${randomUUID()}`];
    const [notes, log] = [await store(names[0]!), await store(names[1]!)];
    // notes: one memory of 11 bytes, two versions (created, modified).
    const greeting = await write(notes, '/greeting.md', 'hello');
    expect((await request('PATCH', `/memory-stores/${notes}/memories/${greeting}`, { content: 'hello world' })).status).toBe(200);
    // log: one memory of 16 bytes, three versions (two created, one deleted).
    await write(log, '/acme.md', 'Renews in March.');
    const scratch = await write(log, '/scratch.md', 'x');
    expect((await request('DELETE', `/memory-stores/${log}/memories/${scratch}`)).status).toBe(200);

    const selector = `{project_id="${projectId}"}`;
    await eventually(`agent_runtime_memory_store_memories${selector}`, single, 2);
    await eventually(`agent_runtime_memory_store_bytes${selector}`, single, 27);
    await eventually(`agent_runtime_memory_store_versions${selector}`, single, 5);
    // Served by the worker only, one series per project, and nothing names a store.
    await eventually('count by (job) (agent_runtime_memory_store_bytes)', (s) => byLabel(s, 'job'), { worker: 1 });
    const pages = await Promise.all([apiMetrics, workerMetrics].map(async (url) => (await fetch(url)).text()));
    for (const page of pages) for (const text of [notes, log, ...names]) expect(page.includes(text), text).toBe(false);
  });

  it('every query of the Grafana dashboard is valid PromQL over metrics the processes export', async () => {
    const dashboard = JSON.parse(
      fs.readFileSync(path.join(import.meta.dirname, '..', '..', 'deploy', 'observability', 'grafana', 'dashboards', 'agent-runtime.json'), 'utf8'),
    ) as {
      panels: Array<{ title: string; targets?: Array<{ expr: string }> }>;
    };
    const exprs = dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => ({ panel: panel.title, expr: target.expr })));
    expect(exprs.length).toBeGreaterThan(20);
    const stored = new Set(((await (await fetch(`${prometheus.url}/api/v1/label/__name__/values`)).json()) as { data: string[] }).data);
    // Counters with labels show no series until first counted: their HELP line says they exist.
    const pages = (await Promise.all([apiMetrics, workerMetrics].map(async (url) => (await fetch(url)).text()))).join('\n');
    const declared = new Set([...pages.matchAll(/^# HELP (\S+)/gm)].map((match) => match[1]!));
    for (const { panel, expr } of exprs) {
      await expect(prometheus.query(expr), `${panel}: ${expr}`).resolves.toBeInstanceOf(Array);
      for (const [name] of expr.matchAll(/\b(?:agent_runtime|temporal|nodejs|process)_[a-z0-9_]+/g)) {
        const family = name.replace(/_(bucket|count|sum)$/, '');
        expect(stored.has(name) || declared.has(family), `${panel}: ${name}`).toBe(true);
      }
    }
  });

  it('serves metrics only on the operator port, never on the public API port', async () => {
    // The public port's `/metrics` is the console's page like any other path outside `/v1`.
    const publicPage = await fetch(`${api.url}/metrics`);
    expect(publicPage.headers.get('content-type')).not.toMatch(/^text\/plain/);
    expect(await publicPage.text()).not.toContain('agent_runtime_');
    const page = await fetch(apiMetrics);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    // The API process serves no state gauges and no SDK metrics (its worker does).
    const text = await page.text();
    expect(text).toContain('agent_runtime_http_requests_total');
    expect(text).not.toContain('agent_runtime_runs_unsettled');
    expect(text).not.toMatch(/^temporal_/m);
  });
});
