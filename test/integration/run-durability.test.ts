import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { and, eq, inArray } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it, onTestFinished } from 'vitest';
import {
  contextCompactions,
  harnessOperationCalls,
  sandboxCommands,
  memoryVersions,
  messages,
  modelInvocations,
  productEvents,
  runs,
  sessions,
  toolCalls,
} from '../../db/schema/index.ts';
import { connectTemporal, type TemporalClientHandle } from '../../temporal/client.ts';
import { createTemporalRunStarter } from '../../temporal/run-starter.ts';
import { startMcpFixtureServer } from '../fixtures/mcp/server.ts';
import { FAKE_KEYS } from '../fixtures/model-vendors/catalog-server.ts';
import { startFakeModelServers, type FakeModelServers, type RecordedRequest } from '../fixtures/model-vendors/chat-server.ts';
import type { ScriptedReply } from '../fixtures/model-vendors/script.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { deferredRunStarter } from '../support/runtime.ts';
import { killWorkerProcess, startWorkerProcess, waitFor } from '../support/worker-process.ts';

/**
 * Durability of the run engine with the worker as a separate OS process (`npm run worker`):
 * SIGKILL it in the middle of a model call, start another, and the run settles exactly once.
 * Needs a PostgreSQL server: two processes cannot share an embedded PGlite database.
 */

let t: TestApp;
let fakes: FakeModelServers;
let temporal: TemporalClientHandle;
let project: string;
let key: string;
const taskQueue = `durability-${randomUUID()}`;
const starter = deferredRunStarter();
const workers: ChildProcess[] = [];
const DEVELOPMENT_NETWORK = { SVC_OUTBOUND_ALLOW_PRIVATE_NETWORK: 'true' };
let echo: FakeModelServers['vendor_a']['defaultReply'] | null = null;

beforeAll(async () => {
  fakes = await startFakeModelServers();
  echo = fakes.vendor_a.defaultReply;
  // MCP endpoints on loopback need the development setting, in the API and in the worker.
  t = await createTestApp({ env: { ...fakes.env, ...DEVELOPMENT_NETWORK }, runStarter: starter });
  if (!t.database.url) return;
  const { address, namespace } = inject('temporal');
  temporal = await connectTemporal({ address, namespace });
  starter.target = createTemporalRunStarter({ client: temporal.client, taskQueue, logger: t.deps.logger });
  project = `/v1/projects/${(await t.login()).context.project.id}`;
  key = (await t.createApiKey(['*'])).secret;
  const provider = await call('POST', '/model-providers', { key: 'openai', displayName: 'OpenAI', providerType: 'vendor_a', apiKey: FAKE_KEYS.vendor_a });
  await call('POST', '/model-presets', { key: 'fast', displayName: 'Fast', providerId: provider.body.id, model: 'vendor_a/gpt-5.1', routing: {} });
}, 120_000);

// Each test answers by its own rule (answerBy); the echo between them.
afterEach(() => {
  if (fakes && echo) fakes.vendor_a.defaultReply = echo;
});

afterAll(async () => {
  for (const worker of workers) if (worker.exitCode === null) worker.kill('SIGKILL');
  await temporal?.close();
  await t?.close();
  await fakes?.close();
});

async function call(method: string, urlPath: string, body?: unknown) {
  const response = await t.request(method, `${project}${urlPath}`, { apiKey: key, body });
  return { status: response.status, body: await response.json() };
}

/** `npm run worker` against the test database and Temporal server; resolves once it polls. */
async function startWorker(): Promise<ChildProcess> {
  const child = await startWorkerProcess({
    databaseUrl: t.database.url!,
    taskQueue,
    dataDir: t.deps.settings.dataDir,
    env: { ...fakes.env, ...DEVELOPMENT_NETWORK },
  });
  workers.push(child);
  return child;
}

/**
 * Answers vendor_a by what each request asks — its last user text, whether it brings a tool's
 * result, and how many such requests came before (`nth`, from 1) — never by arrival order. A model
 * step runs at least once: a call on a worker starved of CPU past its heartbeat timeout (a worker
 * just started beside other test files on 2 cores) is given up and retried, and both reach the
 * vendor. A queue of scripted replies hands that duplicate the reply meant for the next turn
 * (the sub-loop answered "Summarized." and its operation failed, one run in three); asked by
 * content, a duplicate gets the answer its own request deserves. Returns how many requests have
 * asked `text` so far (what a test waits for before it kills a worker).
 */
function answerBy(rule: (asked: { text: string; afterTool: boolean; nth: number }) => ScriptedReply): (text: string) => number {
  expect(fakes.vendor_a.pending(), 'no scripted reply left over to be taken first').toBe(0);
  const seen = new Map<string, number>();
  fakes.vendor_a.defaultReply = (request: RecordedRequest, text: string) => {
    const items = ((request.body as { input?: unknown[] }).input ?? []) as Array<{ type?: string; role?: string }>;
    const afterTool = items.slice(items.findLastIndex((item) => item.role === 'user') + 1).some((item) => item.type === 'function_call_output');
    const key = `${afterTool}:${text}`;
    const nth = (seen.get(key) ?? 0) + 1;
    seen.set(key, nth);
    return rule({ text, afterTool, nth });
  };
  return (text) => (seen.get(`false:${text}`) ?? 0) + (seen.get(`true:${text}`) ?? 0);
}

/** The run once it has settled, however it settled. */
const settled = (runId: string) =>
  waitFor('the run to settle', async () => {
    const current = await call('GET', `/runs/${runId}`);
    return ['completed', 'failed', 'cancelled', 'timed_out'].includes(current.body.state) ? current.body : null;
  });

describe('run durability', () => {
  it('a worker killed with SIGKILL mid-run: a new worker finishes the run exactly once', async (context) => {
    if (!t.database.url) context.skip();
    // The first call is slow and dies with the worker; the retried call answers.
    const asked = answerBy(({ nth }) => (nth === 1 ? { text: 'Lost with the first worker.', delayMs: 60_000 } : { text: 'Survived.' }));
    const first = await startWorker();
    const agent = await call('POST', '/agents', {
      name: 'Durable',
      initialConfig: { systemPrompt: 'Be brief.', modelPreset: 'fast', limits: { maxTurns: 4 } },
    });
    const session = await call('POST', '/sessions', { agentId: agent.body.id, initialMessage: 'Still there?' });
    const runId = session.body.latestRunId as string;

    await waitFor('the model call to reach the vendor', async () => asked('Still there?') >= 1);
    await killWorkerProcess(first);

    await startWorker();
    const run = await settled(runId);
    expect(run.state).toBe('completed');

    const assistant = await t.database.db
      .select()
      .from(messages)
      .where(and(eq(messages.runId, runId), eq(messages.role, 'assistant')));
    expect(assistant.map((row) => row.content.text)).toEqual(['Survived.']);
    const runEvents = await t.database.db.select().from(productEvents).where(eq(productEvents.aggregateId, runId));
    expect(runEvents.map((row) => row.kind).sort()).toEqual(['model.call_started', 'run.completed', 'run.queued', 'run.running'].sort());
    const messageEvents = await t.database.db.select().from(productEvents).where(eq(productEvents.kind, 'message.created'));
    expect(messageEvents.filter((row) => (row.publicPayload as { runId?: string }).runId === runId)).toHaveLength(2);
    const attempts = await t.database.db.select().from(modelInvocations).where(eq(modelInvocations.runId, runId));
    expect(attempts.map((a) => [a.turnId, a.attempt, a.status])).toEqual([['turn-1', 1, 'succeeded']]);
  }, 180_000);

  it('a worker killed with SIGKILL during a context compaction: one summary, one context.compacted, the run settles', async (context) => {
    if (!t.database.url) context.skip();
    // The first summary call dies with the worker; its retry on the next worker answers.
    let summaryRequests = 0;
    answerBy(({ text }) => {
      if (!text.startsWith('<previous_summary>')) return { text: `Reply ${'r'.repeat(2_000)}` };
      summaryRequests += 1;
      return summaryRequests === 1 ? { text: 'Lost with the first worker.', delayMs: 60_000 } : { text: 'SUMMARY: two long turns.' };
    });
    // A window far away, so the fake reports the input it counted (the runtime's count of the thread).
    fakes.vendor_a.contextWindow = 100_000;
    onTestFinished(() => void (fakes.vendor_a.contextWindow = null));
    // Only the worker this test kills may hold the summary call (an earlier test's would outlive it).
    for (const worker of workers) await killWorkerProcess(worker);
    const first = await startWorker();
    const agent = await call('POST', '/agents', {
      name: 'Compacting durably',
      initialConfig: { systemPrompt: 'Be brief.', modelPreset: 'fast', limits: { maxTurns: 4 }, context: { compactAtTokens: 1_000 } },
    });
    const session = await call('POST', '/sessions', { agentId: agent.body.id, initialMessage: `First ${'u'.repeat(2_000)}` });
    expect((await settled(session.body.latestRunId)).state).toBe('completed');
    const second = await call('POST', `/sessions/${session.body.id}/runs`, { message: `Second ${'u'.repeat(2_000)}` });
    const runId = second.body.id as string;

    await waitFor('the summary call to reach the vendor', async () => {
      for (const request of fakes.vendor_a.requests) {
        const text = JSON.stringify(request.body);
        if (text.includes('You compact the transcript')) return true;
      }
      return false;
    });
    await killWorkerProcess(first);
    await startWorker();
    const run = await settled(runId);
    expect(run.state, JSON.stringify(run.failure)).toBe('completed');

    const steps = await t.database.db.select().from(contextCompactions).where(eq(contextCompactions.runId, runId));
    expect(steps.map((row) => [row.status, row.number, row.summary])).toEqual([['accepted', 1, 'SUMMARY: two long turns.']]);
    const compacted = await t.database.db
      .select()
      .from(productEvents)
      .where(and(eq(productEvents.aggregateId, runId), eq(productEvents.kind, 'context.compacted')));
    expect(compacted).toHaveLength(1);
    expect(compacted[0]!.publicPayload).toMatchObject({ runId, compaction: 1, reason: 'threshold' });
    const attempts = await t.database.db.select().from(modelInvocations).where(eq(modelInvocations.runId, runId));
    // Each part of the summary is one invocation; the one the dead worker began, the next completed.
    const parts = attempts.filter((row) => row.turnId.startsWith('compact:'));
    expect(parts.length).toBeGreaterThan(0);
    expect(parts.every((row) => row.status === 'succeeded')).toBe(true);
    expect(new Set(parts.map((row) => row.attempt)).size).toBe(parts.length);
    expect(attempts.filter((row) => row.turnId === 'turn-1').map((row) => row.status)).toEqual(['succeeded']);
  }, 180_000);

  it('a worker killed with SIGKILL between a sandbox command writing to a memory mount and its write-back: one version', async (context) => {
    if (!t.database.url) context.skip();
    const provider = await call('POST', '/sandbox-providers', { key: 'durable-local', displayName: 'Local', providerType: 'sandbox_vendor', apiKey: 'local' });
    const snapshotId = (await call('GET', `/sandbox-providers/${provider.body.id}/snapshots`)).body.data[0].id;
    const store = await call('POST', '/memory-stores', { name: `Durable notes ${randomUUID().slice(0, 4)}` });
    const mount = store.body.mountPath as string;
    // The first attempt writes the file, then holds until its worker dies; the retry writes it again and ends.
    const command = `echo 'noted once' > ${mount}todo.md; if [ ! -e .memory-first ]; then touch .memory-first; sleep 120; fi`;
    answerBy(({ afterTool }) => (afterTool ? { text: 'Noted.' } : { toolCalls: [{ name: 'bash', arguments: { command } }] }));
    for (const worker of workers) await killWorkerProcess(worker);
    const first = await startWorker();
    const agent = await call('POST', '/agents', {
      name: 'Remembers durably',
      initialConfig: {
        systemPrompt: 'Be brief.',
        modelPreset: 'fast',
        limits: { maxTurns: 4 },
        sandbox: { enabled: true, provider: 'durable-local', snapshotId, network: 'none', capabilities: ['filesystem_read', 'shell'] },
      },
    });
    expect(agent.status, JSON.stringify(agent.body)).toBe(201);
    const session = await call('POST', '/sessions', { agentId: agent.body.id, initialMessage: 'Note it.', memoryStores: [{ storeId: store.body.id }] });
    expect(session.status, JSON.stringify(session.body)).toBe(201);
    const runId = session.body.latestRunId as string;
    // The command has begun (and written the file in its mount) when its row is there and a moment has passed.
    await waitFor('the bash command to start', async () => {
      const [command_] = await t.database.db.select().from(sandboxCommands).where(eq(sandboxCommands.runId, runId));
      return command_ ?? null;
    });
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    await killWorkerProcess(first);
    await startWorker();
    const run = await settled(runId);
    expect(run.state, JSON.stringify(run.failure)).toBe('completed');
    const versions = await t.database.db.select().from(memoryVersions).where(eq(memoryVersions.storeId, store.body.id));
    expect(versions.map((row) => [row.operation, row.path, row.content, row.runId])).toEqual([['created', '/todo.md', 'noted once\n', runId]]);
  }, 240_000);

  it('a run whose workflow start was lost is started by the reconciler', async (context) => {
    if (!t.database.url) context.skip();
    answerBy(() => ({ text: 'Reconciled.' }));
    const live = starter.target;
    starter.target = null; // the API commits the run but its start call is lost
    const agent = await call('POST', '/agents', { name: 'Orphan', initialConfig: { systemPrompt: 'Be brief.', modelPreset: 'fast', limits: { maxTurns: 4 } } });
    const session = await call('POST', '/sessions', { agentId: agent.body.id, initialMessage: 'Anyone?' });
    starter.target = live;
    expect((await call('GET', `/runs/${session.body.latestRunId}`)).body.state).toBe('queued');
    const run = await waitFor(
      'the reconciler to start the run',
      async () => {
        const current = await call('GET', `/runs/${session.body.latestRunId}`);
        return current.body.state === 'completed' ? current.body : null;
      },
      60_000,
    );
    expect(run.state).toBe('completed');
  }, 90_000);

  it('a worker killed with SIGKILL during an MCP call: the run completes, the server was called at most twice, one result is recorded', async (context) => {
    if (!t.database.url) context.skip();
    // The first call of `hold` never answers (it dies with the worker); a retried call answers at once.
    let holds = 0;
    const mcp = await startMcpFixtureServer({
      tools: [
        {
          name: 'hold',
          inputSchema: { type: 'object' },
          handler: async () => (++holds === 1 ? new Promise(() => {}) : { content: [{ type: 'text', text: 'held and answered' }] }),
        },
      ],
    });
    try {
      const credential = await call('POST', '/mcp-credentials', { key: 'durable', displayName: 'Durable', kind: 'static_bearer', secret: 'durable-secret-1' });
      const policy = await call('POST', '/mcp-credential-policies', {
        key: 'durable',
        displayName: 'Durable',
        credentialId: credential.body.id,
        exactOrigin: mcp.url,
        pathPrefix: '/',
        timeoutMs: 120_000,
        maximumResponseBytes: 65_536,
      });
      const server = await call('POST', '/mcp-servers', {
        key: 'durable',
        displayName: 'Durable',
        endpointUrl: mcp.streamableUrl,
        transport: 'streamable_http',
      });
      const discovered = await call('POST', `/mcp-servers/${server.body.id}/discover`, { credentialPolicyVersionId: policy.body.id });
      const toolset = await call('POST', '/mcp-toolsets', {
        key: 'durable',
        displayName: 'Durable',
        serverVersionId: discovered.body.version.id,
        tools: [{ remoteToolName: 'hold' }],
      });
      const agent = await call('POST', '/agents', {
        name: 'Durable MCP',
        initialConfig: {
          systemPrompt: 'Use it.',
          modelPreset: 'fast',
          limits: { maxTurns: 4, timeoutMs: 150_000 },
          mcpBindings: [{ toolsetVersionId: toolset.body.latestVersionId, credentialPolicyVersionId: policy.body.id, namespace: 'ops' }],
        },
      });
      expect(agent.status, JSON.stringify(agent.body)).toBe(201);
      answerBy(({ afterTool }) => (afterTool ? { text: 'Held.' } : { toolCalls: [{ name: 'mcp__ops__hold', arguments: {} }] }));
      // Only the worker about to be killed may pick up the call: earlier tests' workers go first.
      for (const worker of workers) await killWorkerProcess(worker);
      const first = await startWorker();
      const session = await call('POST', '/sessions', { agentId: agent.body.id, initialMessage: 'Hold on.' });
      const runId = session.body.latestRunId as string;

      await waitFor('the MCP call to reach the server', async () => holds >= 1);
      await killWorkerProcess(first);
      await startWorker();
      const run = await settled(runId);
      expect(run.state).toBe('completed');
      expect(holds).toBeLessThanOrEqual(2);
      const calls = await t.database.db.select().from(toolCalls).where(eq(toolCalls.runId, runId));
      expect(calls.map((row) => [row.toolName, row.status])).toEqual([['mcp__ops__hold', 'succeeded']]);
      const toolMessages = await t.database.db
        .select()
        .from(messages)
        .where(and(eq(messages.runId, runId), eq(messages.role, 'tool')));
      expect(toolMessages).toHaveLength(1);
      expect(JSON.stringify(toolMessages[0]!.content)).toContain('held and answered');
    } finally {
      await mcp.close();
    }
  }, 180_000);

  it('a worker killed with SIGKILL during a Harness Operation sub-loop: the operation and the run complete once', async (context) => {
    if (!t.database.url) context.skip();
    // The sub-loop's first model call is slow and dies with the worker; its retry answers.
    const asked = answerBy(({ text, afterTool, nth }) => {
      if (text === 'Summarize: fine.') return nth === 1 ? { text: '{"summary":"lost"}', delayMs: 60_000 } : { text: '{"summary":"Fine."}' };
      return afterTool ? { text: 'Summarized.' } : { toolCalls: [{ name: 'summarize', arguments: { task: 'Summarize: fine.' } }] };
    });
    for (const worker of workers) await killWorkerProcess(worker);
    const first = await startWorker();
    const agent = await call('POST', '/agents', {
      name: 'Durable operator',
      initialConfig: {
        systemPrompt: 'Coordinate.',
        modelPreset: 'fast',
        limits: { maxTurns: 6, timeoutMs: 150_000 },
        harnessOperations: [
          {
            key: 'summarize',
            description: 'Summarizes.',
            instructions: 'Be brief.',
            resultSchema: { type: 'object', properties: { summary: { type: 'string' } }, required: ['summary'] },
            timeoutMs: 120_000,
          },
        ],
      },
    });
    expect(agent.status, JSON.stringify(agent.body)).toBe(201);
    const requests = fakes.vendor_a.requests.length;
    const session = await call('POST', '/sessions', { agentId: agent.body.id, initialMessage: 'Summarize.' });
    const runId = session.body.latestRunId as string;
    await waitFor('the sub-loop model call to reach the vendor', async () => asked('Summarize: fine.') >= 1);
    await killWorkerProcess(first);
    await startWorker();
    const run = await settled(runId);
    expect(run.state).toBe('completed');

    const calls = await t.database.db.select().from(toolCalls).where(eq(toolCalls.runId, runId));
    // On failure, say how the call ended, what the vendor was asked in which order, which
    // invocations ran, and each model step's activity attempts (more than one: a retry).
    const requested = fakes.vendor_a.requests
      .slice(requests)
      .map((request) => JSON.stringify(request.body).match(/"(?:content|text)":"([^"]{0,40})/)?.[1] ?? '?');
    const invocations = (await t.database.db.select().from(modelInvocations).where(eq(modelInvocations.runId, runId))).map(
      (row) => `${row.turnId.replace(/^op:[^:]+/, 'op')}#${row.attempt}:${row.status}`,
    );
    const history = await temporal.client.workflow.getHandle(`run:${runId}`).fetchHistory();
    const activityAttempts = (history.events ?? []).flatMap((event) =>
      event.activityTaskStartedEventAttributes ? [event.activityTaskStartedEventAttributes.attempt] : [],
    );
    expect(
      calls.map((row) => [row.toolName, row.status, (row.safeResult as { value?: unknown } | null)?.value]),
      JSON.stringify({ failure: calls[0]?.failure, requested, invocations, activityAttempts }),
    ).toEqual([['summarize', 'succeeded', { summary: 'Fine.' }]]);
    const operations = await t.database.db.select().from(harnessOperationCalls).where(eq(harnessOperationCalls.runId, runId));
    expect(operations).toHaveLength(1);
    const subLoop = await t.database.db.select().from(messages).where(eq(messages.threadId, operations[0]!.threadId));
    expect(subLoop.map((row) => row.role)).toEqual(['user', 'assistant']);
    const attempts = await t.database.db.select().from(modelInvocations).where(eq(modelInvocations.runId, runId));
    expect(
      attempts
        .filter((row) => row.status === 'succeeded')
        .map((row) => row.turnId)
        .sort(),
    ).toEqual([`op:${calls[0]!.id}:turn-1`, 'turn-1', 'turn-2'].sort());
    const toolEvents = await t.database.db.select().from(productEvents).where(eq(productEvents.aggregateId, calls[0]!.id));
    expect(toolEvents.map((row) => row.kind).sort()).toEqual(['tool_call.created', 'tool_call.succeeded']);
  }, 180_000);

  it('a worker killed with SIGKILL while a delegated child run is in flight: both complete once, one child session', async (context) => {
    if (!t.database.url) context.skip();
    const child = await call('POST', '/agents', {
      name: 'Durable child',
      initialConfig: { systemPrompt: 'Answer.', modelPreset: 'fast', limits: { maxTurns: 4 } },
    });
    const coordinator = await call('POST', '/agents', {
      name: 'Durable coordinator',
      initialConfig: {
        systemPrompt: 'Delegate.',
        modelPreset: 'fast',
        limits: { maxTurns: 6, timeoutMs: 150_000 },
        delegates: [{ key: 'child', description: 'The child.', agentVersionId: child.body.latestVersionId, maxParallel: 1 }],
      },
    });
    expect(coordinator.status, JSON.stringify(coordinator.body)).toBe(201);
    // The child's first model call is slow and dies with the worker; its retry answers.
    const asked = answerBy(({ text, afterTool, nth }) => {
      if (text === 'Answer once.') return nth === 1 ? { text: 'lost', delayMs: 60_000 } : { text: 'Answered.' };
      return afterTool
        ? { text: 'The child answered.' }
        : { toolCalls: [{ name: 'delegate_agent', arguments: { delegateKey: 'child', message: 'Answer once.' } }] };
    });
    for (const worker of workers) await killWorkerProcess(worker);
    const first = await startWorker();
    const session = await call('POST', '/sessions', { agentId: coordinator.body.id, initialMessage: 'Delegate it.' });
    const runId = session.body.latestRunId as string;
    await waitFor("the child's model call to reach the vendor", async () => asked('Answer once.') >= 1);
    await killWorkerProcess(first);
    await startWorker();
    expect((await settled(runId)).state).toBe('completed');

    const children = await t.database.db.select().from(sessions).where(eq(sessions.parentSessionId, session.body.id));
    expect(children).toHaveLength(1);
    const childRuns = await t.database.db.select().from(runs).where(eq(runs.sessionId, children[0]!.id));
    expect(childRuns.map((row) => row.state)).toEqual(['completed']);
    const calls = await t.database.db.select().from(toolCalls).where(eq(toolCalls.runId, runId));
    expect(calls.map((row) => [row.toolName, row.status, (row.safeResult as { value?: { answer?: string } } | null)?.value?.answer])).toEqual([
      ['delegate_agent', 'succeeded', 'Answered.'],
    ]);
    const queued = await t.database.db.select().from(productEvents).where(eq(productEvents.kind, 'delegation.run_queued'));
    expect(queued.filter((row) => (row.publicPayload as { coordinatorRunId?: string }).coordinatorRunId === runId)).toHaveLength(1);
    const childMessages = await t.database.db
      .select()
      .from(messages)
      .where(and(eq(messages.runId, childRuns[0]!.id), eq(messages.role, 'assistant')));
    expect(childMessages.map((row) => row.content.text)).toEqual(['Answered.']);
  }, 180_000);
  it('a worker killed with SIGKILL during a fan-out of three children: each child settles once, the coordinator once', async (context) => {
    if (!t.database.url) context.skip();
    const child = await call('POST', '/agents', {
      name: 'Fan-out child',
      initialConfig: { systemPrompt: 'Answer.', modelPreset: 'fast', limits: { maxTurns: 4 } },
    });
    const coordinator = await call('POST', '/agents', {
      name: 'Fan-out coordinator',
      initialConfig: {
        systemPrompt: 'Delegate.',
        modelPreset: 'fast',
        limits: { maxTurns: 6, timeoutMs: 150_000 },
        delegates: [{ key: 'child', description: 'The child.', agentVersionId: child.body.latestVersionId, maxParallel: 2 }],
      },
    });
    expect(coordinator.status, JSON.stringify(coordinator.body)).toBe(201);
    const parts = ['Part A.', 'Part B.', 'Part C.'];
    // The first two children (in call order; maxParallel 2) are in flight when the worker dies:
    // their first calls are slow and die with it; the retries and the third child answer.
    const asked = answerBy(({ text, afterTool, nth }) => {
      if (parts.includes(text)) return nth === 1 && text !== 'Part C.' ? { text: 'lost', delayMs: 60_000 } : { text: `Done: ${text}` };
      return afterTool
        ? { text: 'All parts are done.' }
        : { toolCalls: parts.map((message) => ({ name: 'delegate_agent', arguments: { delegateKey: 'child', message } })) };
    });
    for (const worker of workers) await killWorkerProcess(worker);
    const first = await startWorker();
    const session = await call('POST', '/sessions', { agentId: coordinator.body.id, initialMessage: 'Fan out.' });
    const runId = session.body.latestRunId as string;
    // Two children in flight (maxParallel 2), the third waiting queued.
    await waitFor('the first two children to reach the vendor', async () => asked('Part A.') >= 1 && asked('Part B.') >= 1);
    expect(asked('Part C.')).toBe(0);
    await killWorkerProcess(first);
    await startWorker();
    expect((await settled(runId)).state).toBe('completed');

    const children = await t.database.db.select().from(sessions).where(eq(sessions.parentSessionId, session.body.id));
    expect(children).toHaveLength(3);
    const childRuns = await t.database.db
      .select()
      .from(runs)
      .where(
        inArray(
          runs.sessionId,
          children.map((row) => row.id),
        ),
      );
    expect(childRuns.map((row) => row.state)).toEqual(['completed', 'completed', 'completed']);
    for (const row of childRuns) {
      const settledEvents = await t.database.db
        .select()
        .from(productEvents)
        .where(and(eq(productEvents.aggregateId, row.id), eq(productEvents.kind, 'run.completed')));
      expect(settledEvents).toHaveLength(1);
    }
    const coordinatorSettled = await t.database.db
      .select()
      .from(productEvents)
      .where(and(eq(productEvents.aggregateId, runId), eq(productEvents.kind, 'run.completed')));
    expect(coordinatorSettled).toHaveLength(1);
    const calls = await t.database.db.select().from(toolCalls).where(eq(toolCalls.runId, runId));
    expect(calls.map((row) => (row.safeResult as { value?: { answer?: string } } | null)?.value?.answer).sort()).toEqual(parts.map((part) => `Done: ${part}`));
    const results = await t.database.db
      .select()
      .from(messages)
      .where(and(eq(messages.runId, runId), eq(messages.role, 'tool')));
    expect(results).toHaveLength(3);
  }, 180_000);

  it('a worker killed with SIGKILL with three turns pending behind the active run: every turn becomes a run and settles once, in order', async (context) => {
    if (!t.database.url) context.skip();
    for (const worker of workers) await killWorkerProcess(worker);
    const answers: Record<string, string> = { p1: 'one', p2: 'two', p3: 'three' };
    const asked = answerBy(({ text, nth }) =>
      text === 'The active turn'
        ? nth === 1
          ? { text: 'Lost with the first worker.', delayMs: 60_000 }
          : { text: 'Active done.' }
        : { text: answers[text] ?? `unexpected: ${text}` },
    );
    const first = await startWorker();
    const agent = await call('POST', '/agents', { name: 'Queued', initialConfig: { systemPrompt: 'Be brief.', modelPreset: 'fast', limits: { maxTurns: 4 } } });
    const session = await call('POST', '/sessions', { agentId: agent.body.id, initialMessage: 'The active turn' });
    const sessionId = session.body.id as string;
    await waitFor('the model call to reach the vendor', async () => asked('The active turn') >= 1);
    for (const message of ['p1', 'p2', 'p3']) {
      const queued = await call('POST', `/sessions/${sessionId}/runs`, { message, ifBusy: 'enqueue' });
      expect(queued.status).toBe(202);
      expect(queued.body.queued).toBe(true);
    }
    await killWorkerProcess(first);
    await startWorker();

    const all = await waitFor('four settled runs', async () => {
      const rows = await t.database.db.select().from(runs).where(eq(runs.sessionId, sessionId)).orderBy(runs.createdAt);
      return rows.length === 4 && rows.every((run) => run.state === 'completed') ? rows : null;
    });
    expect(all.map((run) => run.inputPublic.message)).toEqual(['The active turn', 'p1', 'p2', 'p3']);
    for (let i = 1; i < all.length; i++) expect(all[i]!.createdAt.getTime()).toBeGreaterThanOrEqual(all[i - 1]!.settledAt!.getTime());
    for (const [i, run] of all.entries()) {
      const assistant = await t.database.db
        .select()
        .from(messages)
        .where(and(eq(messages.runId, run.id), eq(messages.role, 'assistant')));
      expect(assistant.map((row) => row.content.text)).toEqual([['Active done.', 'one', 'two', 'three'][i]]);
      const settledEvents = await t.database.db
        .select()
        .from(productEvents)
        .where(and(eq(productEvents.aggregateId, run.id), eq(productEvents.kind, 'run.completed')));
      expect(settledEvents).toHaveLength(1);
    }
  }, 180_000);
});
