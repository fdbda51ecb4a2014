import { randomBytes, randomUUID } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { trace, type ProxyTracerProvider } from '@opentelemetry/api';
import { Resource } from '@opentelemetry/resources';
import { SimpleSpanProcessor, InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import type { IExportTraceServiceRequest } from '@opentelemetry/otlp-transformer/build/src/trace/internal-types.js';
import { makeWorkflowExporter } from '@temporalio/interceptors-opentelemetry';
import { IllegalStateError } from '@temporalio/common';
import { bundleWorkflowCode, DefaultLogger, Runtime, Worker, type WorkflowBundle } from '@temporalio/worker';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { parseSettings } from '../../config/settings.ts';
import { startTracing } from '../../config/tracing.ts';
import { tracingClientInterceptors, tracingWorkerOptions, tracingWorkflowInterceptorsPath } from '../../temporal/tracing.ts';
import { workflowsPath } from '../../temporal/worker.ts';
import { FAKE_KEYS, startFakeModelServers, type FakeModelServers } from '../fixtures/model-vendors/chat-server.ts';
import { startMcpFixtureServer, type McpFixtureServer } from '../fixtures/mcp/server.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../fixtures/webhook-receiver/receiver.ts';
import { goldenHistories, historyFromJson } from '../histories/histories.ts';
import { developmentApiKey } from '../support/process-bootstrap.ts';
import { withDatabase } from '../support/postgres-server.ts';
import { killProcess, startApiProcess, startWorkerProcess, waitFor } from '../support/worker-process.ts';

/**
 * Traces (issue 34, part 2): the API and the worker run as their own processes (the
 * OpenTelemetry SDK is process-global) with OTEL_EXPORTER_OTLP_ENDPOINT pointing at an OTLP/HTTP
 * receiver in this test, which decodes what they export (OTLP JSON, typed with the OpenTelemetry
 * project's own transformer types). One run with a platform tool, an MCP call and a webhook
 * delivery must arrive as one connected trace rooted at the `POST /sessions` request, with the
 * GenAI attributes on model spans, and none of the prompts, arguments, results or secrets the test
 * used anywhere in what was exported.
 */
const provided = inject('database');

type ReceivedSpan = {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  service: string;
  attributes: Record<string, unknown>;
  links: Array<{ traceId: string; spanId: string }>;
};

/** An OTLP/HTTP receiver (`POST /v1/traces`, JSON): every raw body, and the spans decoded. */
async function startOtlpReceiver() {
  const bodies: string[] = [];
  const spans: ReceivedSpan[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      bodies.push(`${req.method} ${req.url} ${req.headers['content-type']}\n${text}`);
      if (req.url === '/v1/traces' && req.headers['content-type']?.startsWith('application/json')) {
        const request = JSON.parse(text) as IExportTraceServiceRequest;
        for (const resourceSpans of request.resourceSpans ?? []) {
          const service = valueOf(resourceSpans.resource?.attributes.find((entry) => entry.key === 'service.name')?.value);
          for (const scope of resourceSpans.scopeSpans) {
            for (const span of scope.spans ?? []) {
              spans.push({
                traceId: String(span.traceId),
                spanId: String(span.spanId),
                parentSpanId: span.parentSpanId ? String(span.parentSpanId) : '',
                name: span.name,
                kind: span.kind,
                service: String(service),
                attributes: Object.fromEntries(span.attributes.map((entry) => [entry.key, valueOf(entry.value)])),
                links: span.links.map((link) => ({ traceId: String(link.traceId), spanId: String(link.spanId) })),
              });
            }
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bodies,
    spans,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function valueOf(
  value:
    | { stringValue?: string | null; intValue?: unknown; doubleValue?: number | null; boolValue?: boolean | null; arrayValue?: { values: unknown[] } }
    | undefined,
): unknown {
  if (!value) return undefined;
  if (value.stringValue !== undefined && value.stringValue !== null) return value.stringValue;
  if (value.intValue !== undefined && value.intValue !== null) return Number(value.intValue);
  if (value.doubleValue !== undefined && value.doubleValue !== null) return value.doubleValue;
  if (value.boolValue !== undefined && value.boolValue !== null) return value.boolValue;
  if (value.arrayValue) return value.arrayValue.values.map((item) => valueOf(item as never));
  return value;
}

describe.skipIf(provided.kind !== 'postgres')('one trace per run, exported over OTLP/HTTP', () => {
  let otlp: Awaited<ReturnType<typeof startOtlpReceiver>>;
  let fakes: FakeModelServers;
  let mcp: McpFixtureServer;
  let receiver: WebhookReceiver;
  let admin: postgres.Sql;
  let databaseName = '';
  let api: { url: string; child: ChildProcess };
  let worker: ChildProcess;
  let dataDir = '';
  let key = '';
  let projectId = '';
  // What must never leave in a span: the prompt, the tool arguments and results, and every secret.
  const PROMPT = `count-these-words-${randomUUID()}`;
  const FOLLOW_UP = `follow-up-${randomUUID()}`;
  const TOOL_TEXT = `tool-argument-${randomUUID()}`;
  const MCP_TEXT = `mcp-argument-${randomUUID()}`;
  const ANSWER = `final-answer-${randomUUID()}`;
  const SYSTEM_PROMPT = `system-prompt-${randomUUID()}`;
  const MCP_BEARER = `mcp-bearer-${randomBytes(12).toString('hex')}`;
  const SIGNING_SECRET = `whsec_${randomBytes(24).toString('base64')}`;
  // A token in the webhook's URL path (as some receivers take it): never exported either.
  const HOOK_TOKEN = `hook-token-${randomUUID()}`;

  const call = async (method: string, pathname: string, body?: unknown) => {
    const response = await fetch(`${api.url}/v1/projects/${projectId}${pathname}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...(method === 'GET' ? {} : { 'idempotency-key': randomUUID() }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json().catch(() => null)) as any };
  };
  const settledRun = (runId: string) =>
    waitFor(`run ${runId} settled`, async () => {
      const run = await call('GET', `/runs/${runId}`);
      return ['completed', 'failed', 'cancelled', 'timed_out'].includes(run.body?.state) ? run.body : null;
    });

  beforeAll(async () => {
    if (provided.kind !== 'postgres') return;
    otlp = await startOtlpReceiver();
    fakes = await startFakeModelServers();
    mcp = await startMcpFixtureServer();
    mcp.requireHeader('authorization', `Bearer ${MCP_BEARER}`);
    receiver = await startWebhookReceiver({ path: `/hooks/${HOOK_TOKEN}` });
    admin = postgres(provided.adminUrl, { max: 1, onnotice: () => {} });
    databaseName = `${provided.runId}_tracing_${randomBytes(3).toString('hex')}`;
    await admin.unsafe(`create database "${databaseName}"`);
    const databaseUrl = withDatabase(provided.adminUrl, databaseName);
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-tracing-'));
    const env = {
      ...fakes.env,
      SVC_CREDENTIAL_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      SVC_OUTBOUND_ALLOW_PRIVATE_NETWORK: 'true',
      SVC_PLATFORM_TOOL_MODULES: 'test/fixtures/platform-tools/word-count.ts',
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      // Exported within a fifth of a second, so the test waits little.
      OTEL_BSP_SCHEDULE_DELAY: '200',
    };
    const taskQueue = `tracing-${randomUUID()}`;
    // The worker first: it migrates the empty database before the API opens it.
    worker = await startWorkerProcess({ databaseUrl, taskQueue, dataDir, env });
    api = await startApiProcess({ databaseUrl, taskQueue, dataDir, env });
    ({ key, projectId } = await developmentApiKey(api.url, 'tracing'));
  }, 180_000);

  afterAll(async () => {
    if (api) await killProcess(api.child);
    if (worker) await killProcess(worker);
    if (databaseName) await admin?.unsafe(`drop database if exists "${databaseName}" with (force)`);
    await admin?.end({ timeout: 5 });
    await fakes?.close();
    await mcp?.close();
    await receiver?.close();
    await otlp?.close();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('a run with a platform tool, an MCP call and a webhook delivery is one connected trace from its POST /sessions', async () => {
    const provider = await call('POST', '/model-providers', { key: 'openai', displayName: 'OpenAI', providerType: 'vendor_a', apiKey: FAKE_KEYS.vendor_a });
    expect(provider.status, JSON.stringify(provider.body)).toBe(201);
    expect(
      (await call('POST', '/model-presets', { key: 'fast', displayName: 'Fast', providerId: provider.body.id, model: 'vendor_a/gpt-5.1', routing: {} })).status,
    ).toBe(201);
    const server = await call('POST', '/mcp-servers', { key: 'fixture', displayName: 'Fixture', endpointUrl: mcp.streamableUrl, transport: 'streamable_http' });
    expect(server.status, JSON.stringify(server.body)).toBe(201);
    const credential = await call('POST', '/mcp-credentials', { key: 'crm-token', displayName: 'CRM token', kind: 'static_bearer', secret: MCP_BEARER });
    expect(credential.status, JSON.stringify(credential.body)).toBe(201);
    const policy = await call('POST', '/mcp-credential-policies', {
      key: 'crm',
      displayName: 'CRM',
      credentialId: credential.body.id,
      exactOrigin: mcp.url,
      pathPrefix: '/mcp',
      timeoutMs: 5_000,
      maximumResponseBytes: 65_536,
    });
    expect(policy.status, JSON.stringify(policy.body)).toBe(201);
    const discovered = await call('POST', `/mcp-servers/${server.body.id}/discover`, { credentialPolicyVersionId: policy.body.id });
    expect(discovered.status, JSON.stringify(discovered.body)).toBe(201);
    const toolset = await call('POST', '/mcp-toolsets', {
      key: 'crm-tools',
      displayName: 'CRM tools',
      serverVersionId: discovered.body.version.id,
      tools: [{ remoteToolName: 'echo' }],
    });
    expect(toolset.status, JSON.stringify(toolset.body)).toBe(201);
    const agent = await call('POST', '/agents', {
      name: 'Traced',
      initialConfig: {
        systemPrompt: SYSTEM_PROMPT,
        modelPreset: 'fast',
        limits: { maxTurns: 6 },
        tools: [
          {
            name: 'word_count',
            description: 'Counts words',
            owner: 'platform',
            approval: 'never',
            inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
            outputSchema: { type: 'object', properties: {}, additionalProperties: true },
          },
        ],
        mcpBindings: [{ toolsetVersionId: toolset.body.latestVersionId, credentialPolicyVersionId: policy.body.id, namespace: 'crm' }],
      },
    });
    expect(agent.status, JSON.stringify(agent.body)).toBe(201);
    // The webhook last: its first batches then carry the run's events.
    const webhook = await call('POST', '/event-webhooks', { displayName: 'Receiver', endpointUrl: receiver.url, signingSecret: SIGNING_SECRET });
    expect(webhook.status, JSON.stringify(webhook.body)).toBe(201);

    fakes.vendor_a
      .reply({
        toolCalls: [
          { name: 'word_count', arguments: { text: TOOL_TEXT } },
          { name: 'mcp__crm__echo', arguments: { text: MCP_TEXT } },
        ],
      })
      .reply({ text: ANSWER })
      .reply({ text: `${ANSWER}-again` });
    const session = await call('POST', '/sessions', { agentId: agent.body.id, initialMessage: PROMPT });
    expect(session.status, JSON.stringify(session.body)).toBe(201);
    const runId = session.body.latestRunId as string;
    expect((await settledRun(runId)).state).toBe('completed');
    expect(mcp.toolCalls.map((entry) => entry.arguments)).toEqual([{ text: MCP_TEXT }]);
    // A follow-up run has its own trace, rooted at its own request.
    const followUp = await call('POST', `/sessions/${session.body.id}/runs`, { message: FOLLOW_UP });
    expect(followUp.status, JSON.stringify(followUp.body)).toBe(202);
    const followUpRunId = followUp.body.id as string;
    expect((await settledRun(followUpRunId)).state).toBe('completed');
    await receiver.waitFor(
      (requests) =>
        requests.some((request) => JSON.stringify(request.body).includes(`"runId":"${followUpRunId}"`) && request.rawBody.includes('run.completed')),
      60_000,
    );

    const sessionsRoute = 'POST /v1/projects/:projectId/sessions';
    // Everything of the run is exported once its workflow ended and its batch was delivered.
    const traceId = await waitFor(
      'the run trace with its webhook delivery',
      async () => {
        const root = otlp.spans.find((span) => span.name === sessionsRoute);
        if (!root) return null;
        const names = new Set(otlp.spans.filter((span) => span.traceId === root.traceId).map((span) => span.name));
        return ['RunWorkflow:runWorkflow', 'webhook deliver', 'tools/call echo', 'execute_tool word_count'].every((name) => names.has(name))
          ? root.traceId
          : null;
      },
      60_000,
    );
    const spans = otlp.spans.filter((span) => span.traceId === traceId);
    const names = spans.map((span) => span.name);

    // One root, the API request; every other span's parent is in the trace.
    const ids = new Set(spans.map((span) => span.spanId));
    const roots = spans.filter((span) => span.parentSpanId === '');
    expect(roots.map((span) => [span.name, span.service, span.kind])).toEqual([[sessionsRoute, 'agent-runtime-api', 2]]);
    expect(spans.filter((span) => span.parentSpanId !== '' && !ids.has(span.parentSpanId)).map((span) => span.name)).toEqual([]);
    expect(roots[0]!.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/v1/projects/:projectId/sessions',
      'http.response.status_code': 201,
    });

    // The chain: request → workflow start → workflow → activities → outbound calls.
    const byId = new Map(spans.map((span) => [span.spanId, span]));
    const parentName = (span: ReceivedSpan) => byId.get(span.parentSpanId)?.name;
    const one = (name: string) => {
      const found = spans.filter((span) => span.name === name);
      expect(found, `${name} in ${names.join(', ')}`).not.toHaveLength(0);
      return found[0]!;
    };
    expect(parentName(one('StartWorkflow:runWorkflow'))).toBe(sessionsRoute);
    expect(one('StartWorkflow:runWorkflow').service).toBe('agent-runtime-api');
    expect(parentName(one('RunWorkflow:runWorkflow'))).toBe('StartWorkflow:runWorkflow');
    expect(one('RunWorkflow:runWorkflow').service).toBe('agent-runtime-worker');
    // The workflow sink copies only the workflow's identity onto its spans (not its search attributes or memo).
    expect(Object.keys(one('RunWorkflow:runWorkflow').attributes).sort()).toEqual(['attempt', 'namespace', 'runId', 'taskQueue', 'workflowId', 'workflowType']);
    const modelSpans = spans.filter((span) => span.name === 'chat gpt-5.1');
    expect(modelSpans).toHaveLength(2);
    for (const span of modelSpans) {
      expect(parentName(span)).toBe('RunActivity:callModel');
      expect(span.kind).toBe(3); // CLIENT
      expect(span.attributes).toMatchObject({
        'gen_ai.system': 'openai',
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': 'gpt-5.1',
        'server.address': '127.0.0.1',
      });
      expect(span.attributes['gen_ai.usage.input_tokens']).toEqual(expect.any(Number));
      expect(span.attributes['gen_ai.usage.output_tokens']).toEqual(expect.any(Number));
      expect(span.attributes['gen_ai.response.model']).toEqual(expect.any(String));
    }
    expect(parentName(one('RunActivity:callModel'))).toBe('StartActivity:callModel');
    expect(parentName(one('StartActivity:callModel'))).toBe('RunWorkflow:runWorkflow');
    expect(parentName(one('execute_tool word_count'))).toBe('RunActivity:executePlatformTool');
    expect(parentName(one('tools/call echo'))).toBe('execute_tool mcp__crm__echo');
    expect(one('tools/call echo').attributes).toMatchObject({ 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'echo', 'server.address': '127.0.0.1' });
    // The webhook batch carrying this run's events is a child in its trace, linked to the delivery activity's own trace.
    const delivery = one('webhook deliver');
    expect(parentName(delivery)).toBe('StartWorkflow:runWorkflow');
    expect(delivery.attributes).toMatchObject({ 'agent_runtime.webhook.id': webhook.body.id, 'agent_runtime.webhook.run_count': 1 });
    expect(delivery.links).toHaveLength(1);
    // The activity lingers for more events before it ends (and is exported).
    const activity = await waitFor('the delivery activity span', async () => otlp.spans.find((span) => span.spanId === delivery.links[0]!.spanId), 30_000);
    expect([activity.name, activity.traceId === traceId, activity.parentSpanId]).toEqual(['RunActivity:deliverWebhookBatches', false, '']);
    const post = spans.find((span) => span.name === 'POST' && span.parentSpanId === delivery.spanId);
    expect(post?.attributes).toMatchObject({ 'http.request.method': 'POST', 'http.response.status_code': 204, 'server.address': '127.0.0.1' });

    // The follow-up run: its workflow in the trace of its own request, not the first run's.
    const followUpRoute = 'POST /v1/projects/:projectId/sessions/:sessionId/runs';
    const followUpTrace = await waitFor(
      'the follow-up trace',
      async () => {
        const root = otlp.spans.find((span) => span.name === followUpRoute);
        return root && otlp.spans.some((span) => span.traceId === root.traceId && span.name === 'RunWorkflow:runWorkflow') ? root.traceId : null;
      },
      30_000,
    );
    expect(followUpTrace).not.toBe(traceId);
    expect(otlp.spans.filter((span) => span.traceId === followUpTrace && span.name === 'chat gpt-5.1')).toHaveLength(1);

    // Nothing the test sent or any secret appears anywhere in what was exported.
    const exported = otlp.bodies.join('\n');
    const forbidden = {
      PROMPT,
      FOLLOW_UP,
      TOOL_TEXT,
      MCP_TEXT,
      ANSWER,
      SYSTEM_PROMPT,
      MCP_BEARER,
      SIGNING_SECRET,
      HOOK_TOKEN,
      providerKey: FAKE_KEYS.vendor_a,
      apiKey: key,
    };
    expect(exported.length).toBeGreaterThan(10_000);
    expect(
      Object.entries(forbidden)
        .filter(([, value]) => exported.includes(value))
        .map(([name]) => name),
    ).toEqual([]);
  }, 180_000);
});

describe('with no OTLP endpoint', () => {
  it('tracing is off: no SDK, no interceptor, no sink, no traced workflow bundle', () => {
    expect(parseSettings({}).tracing.enabled).toBe(false);
    expect(parseSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }).tracing.enabled).toBe(true);
    expect(parseSettings({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' }).tracing.enabled).toBe(true);
    expect(parseSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' }).tracing.enabled).toBe(false);
    expect(parseSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_EXPORTER: 'none' }).tracing.enabled).toBe(false);
    expect(() => parseSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector' })).toThrow(/OTEL_EXPORTER_OTLP_ENDPOINT/);

    expect(startTracing({ enabled: false, serviceName: 'agent-runtime-worker' })).toBeNull();
    // The API's global provider still delegates to its no-op provider: no SDK was registered.
    const delegate = (trace.getTracerProvider() as ProxyTracerProvider).getDelegate();
    expect('getActiveSpanProcessor' in delegate).toBe(false);
    expect(trace.getTracer('x').startSpan('y').isRecording()).toBe(false);
    expect(tracingClientInterceptors(null)).toBeUndefined();
    expect(tracingWorkerOptions(null)).toEqual({});
  });
});

describe('the traced workflow bundle', () => {
  let bundle: WorkflowBundle;
  beforeAll(async () => {
    const logger = new DefaultLogger('WARN');
    try {
      Runtime.install({ logger, shutdownSignals: [], telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, forward: {} } } });
    } catch (error) {
      if (!(error instanceof IllegalStateError)) throw error;
    }
    bundle = await bundleWorkflowCode({ workflowsPath, workflowInterceptorModules: [tracingWorkflowInterceptorsPath], logger });
  }, 120_000);

  // Turning tracing on while runs are in flight: their histories, recorded untraced, replay.
  it.each(goldenHistories())(
    '$name replays with the tracing interceptors bundled',
    async ({ name, json }) => {
      const exporter = new InMemorySpanExporter();
      const sinks = { exporter: makeWorkflowExporter(new SimpleSpanProcessor(exporter), new Resource({})) };
      await Worker.runReplayHistory({ workflowBundle: bundle, replayName: name, sinks }, historyFromJson(json), name);
      // Replay exports nothing (sinks are not called while replaying).
      expect(exporter.getFinishedSpans()).toEqual([]);
    },
    60_000,
  );
});
