import { Role, TaskState, type StreamResponse } from '@a2a-js/sdk';
import { ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { messages, productEvents } from '../../../db/schema/index.ts';
import { connectTemporal, type TemporalClientHandle } from '../../../temporal/client.ts';
import { createTemporalRunStarter } from '../../../temporal/run-starter.ts';
import { FAKE_KEYS } from '../../../test/fixtures/model-vendors/catalog-server.ts';
import { startFakeModelServers, type FakeModelServers } from '../../../test/fixtures/model-vendors/chat-server.ts';
import { createTestApp, type TestApp } from '../../../test/support/app.ts';
import { serveApp, type ServedApp } from '../../../test/support/http-server.ts';
import { deferredRunStarter } from '../../../test/support/runtime.ts';
import { killWorkerProcess, startWorkerProcess, waitFor } from '../../../test/support/worker-process.ts';

/**
 * An A2A streaming task whose worker (`npm run worker`, its own OS process) is SIGKILLed mid-answer:
 * the task completes once, and a client that resubscribes gets the rest of it. Needs a PostgreSQL
 * server (two processes cannot share an embedded PGlite database).
 */
let t: TestApp;
let fakes: FakeModelServers;
let temporal: TemporalClientHandle;
let served: ServedApp;
let projectId: string;
let key: string;
const taskQueue = `a2a-durability-${randomUUID()}`;
const starter = deferredRunStarter();
const workers: ChildProcess[] = [];

beforeAll(async () => {
  fakes = await startFakeModelServers();
  t = await createTestApp({ env: fakes.env, runStarter: starter });
  if (!t.database.url) return;
  const { address, namespace } = inject('temporal');
  temporal = await connectTemporal({ address, namespace });
  starter.target = createTemporalRunStarter({ client: temporal.client, taskQueue, logger: t.deps.logger });
  projectId = (await t.login()).context.project.id;
  key = (await t.createApiKey(['*'])).secret;
  const call = (path: string, body: unknown) => t.request('POST', `/v1/projects/${projectId}${path}`, { apiKey: key, body });
  const provider = await (
    await call('/model-providers', { key: 'openai', displayName: 'OpenAI', providerType: 'vendor_a', apiKey: FAKE_KEYS.vendor_a })
  ).json();
  await call('/model-presets', { key: 'fast', displayName: 'Fast', providerId: provider.id, model: 'vendor_a/gpt-5.1', routing: {} });
  served = await serveApp(t.app.fetch);
}, 120_000);

afterAll(async () => {
  for (const worker of workers) if (worker.exitCode === null) worker.kill('SIGKILL');
  await served?.close();
  await temporal?.close();
  await t?.close();
  await fakes?.close();
});

async function startWorker() {
  const child = await startWorkerProcess({ databaseUrl: t.database.url!, taskQueue, dataDir: t.deps.settings.dataDir, env: fakes.env });
  workers.push(child);
  return child;
}

describe('A2A durability', () => {
  it('a worker killed with SIGKILL during a streaming task: the task completes once and a resubscribe gets the rest', async (context) => {
    if (!t.database.url) context.skip();
    // The first call streams slowly and dies with its worker; the retried call answers.
    let asked = 0;
    fakes.vendor_a.defaultReply = () => {
      asked += 1;
      return asked === 1
        ? { text: 'Lost with the first worker, one slow piece at a time.', chunkSize: 2, chunkDelayMs: 250 }
        : { text: 'Survived the crash.', chunkSize: 3, chunkDelayMs: 120 };
    };
    const first = await startWorker();
    const agent = await (
      await t.request('POST', `/v1/projects/${projectId}/agents`, {
        apiKey: key,
        body: { name: 'Durable door', initialConfig: { systemPrompt: 'Be brief.', modelPreset: 'fast', limits: { maxTurns: 4 } } },
      })
    ).json();
    const fetchImpl: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set('Authorization', `Bearer ${key}`);
      return fetch(input, { ...init, headers });
    };
    const factory = new ClientFactory({ transports: [new JsonRpcTransportFactory({ fetchImpl })], cardResolver: new DefaultAgentCardResolver({ fetchImpl }) });
    const client = await factory.createFromUrl(`${served.baseUrl}/a2a/${projectId}/agents/${agent.id}/`);

    const abort = new AbortController();
    let taskId = '';
    const message = { messageId: randomUUID(), contextId: '', taskId: '', role: Role.ROLE_USER, metadata: undefined, extensions: [], referenceTaskIds: [] };
    const parts = [{ content: { $case: 'text' as const, value: 'Still there?' }, metadata: undefined, filename: '', mediaType: 'text/plain' }];
    for await (const event of client.sendMessageStream(
      { tenant: '', message: { ...message, parts }, configuration: undefined, metadata: undefined },
      { signal: abort.signal },
    )) {
      if (event.payload?.$case === 'task') taskId = event.payload.value.id;
      if (event.payload?.$case === 'artifactUpdate') break; // mid-answer: the worker dies now, and so does this stream
    }
    abort.abort();
    await killWorkerProcess(first);
    await startWorker();

    const events: StreamResponse[] = [];
    for await (const event of client.resubscribeTask({ tenant: '', id: taskId })) events.push(event);
    const last = events.at(-1)!.payload!;
    expect(last.$case === 'statusUpdate' && last.value.status!.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const final = events.find((event) => event.payload?.$case === 'artifactUpdate' && event.payload.value.lastChunk);
    expect(final?.payload?.$case === 'artifactUpdate' && final.payload.value.artifact!.parts[0]!.content!.value).toBe('Survived the crash.');
    const task = await client.getTask({ tenant: '', id: taskId });
    expect(task.status!.state).toBe(TaskState.TASK_STATE_COMPLETED);

    // Once: one answer, one settlement.
    const replies = await t.database.db
      .select()
      .from(messages)
      .where(and(eq(messages.runId, taskId), eq(messages.role, 'assistant')));
    expect(replies.map((row) => row.content.text)).toEqual(['Survived the crash.']);
    const settled = await waitFor('the run events', async () => {
      const rows = await t.database.db.select().from(productEvents).where(eq(productEvents.aggregateId, taskId));
      return rows.some((row) => row.kind === 'run.completed') ? rows : null;
    });
    expect(settled.filter((row) => row.kind === 'run.completed')).toHaveLength(1);
  }, 240_000);
});
