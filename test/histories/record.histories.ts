import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import type { Client } from '@temporalio/client';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { productEvents, scheduleFirings, toolCalls } from '../../db/schema/index.ts';
import { RUN_WORKFLOW_TYPE, runWorkflowId } from '../../domain/runs/workflow.ts';
import { webhookWorkflowId } from '../../domain/webhooks/workflow.ts';
import { appendProductEvents } from '../../services/kernel/events/index.ts';
import { systemContext } from '../../services/kernel/service-context.ts';
import { startMcpFixtureServer } from '../fixtures/mcp/server.ts';
import { FAKE_KEYS } from '../fixtures/model-vendors/catalog-server.ts';
import { newSigningSecret, startWebhookReceiver, type WebhookReceiver } from '../fixtures/webhook-receiver/receiver.ts';
import { addNumbersHandler, addNumbersTool } from '../support/platform-tools.ts';
import { startRunApp } from '../support/run-app.ts';
import { findSecrets, historyToJson, summarize } from './histories.ts';

/**
 * Records the golden histories in this folder: one scenario per workflow shape, each driven
 * through the real API, worker and fake vendors, then the workflow's history as Temporal keeps
 * it. Run only on purpose (README.md); never to make a failing replay pass.
 */
const here = path.dirname(fileURLToPath(import.meta.url));
let f: Awaited<ReturnType<typeof startRunApp>>;
let client: Client;
let admin: string;
const secrets: string[] = [...Object.values(FAKE_KEYS)];
const receivers: WebhookReceiver[] = [];
const closers: Array<() => Promise<void>> = [];

beforeAll(async () => {
  f = await startRunApp({
    platformTools: {
      add_numbers: addNumbersHandler,
    },
    // One running run per project, so run-deferred-admission can make a run wait for a place
    // (every other scenario runs one run at a time; a delegated child takes its waiting coordinator's place).
    env: { SVC_OUTBOUND_ALLOW_PRIVATE_NETWORK: 'true', SVC_PROJECT_RUNNING_RUNS_LIMIT: '1' },
  });
  client = f.runtime.client.client;
  admin = (await f.t.createApiKey(['*'], 'history recorder')).secret;
  secrets.push(admin);
}, 120_000);

afterAll(async () => {
  await f?.close();
  for (const receiver of receivers) await receiver.close();
  for (const close of closers) await close();
});

/** Waits for the execution to close, then writes its history as `<name>.json` (Temporal's JSON history format). */
async function save(name: string, workflowId: string, runId?: string) {
  const handle = client.workflow.getHandle(workflowId, runId);
  await handle.result();
  const history = await handle.fetchHistory();
  const json = historyToJson(history);
  expect(findSecrets(json, secrets), `secrets in ${name}`).toEqual([]);
  writeFileSync(path.join(here, `${name}.json`), json);
  console.log(`${name}.json: ${JSON.stringify(summarize(JSON.parse(json)))}`);
  return history;
}

async function createAgent(name: string, config: Record<string, unknown>) {
  const agent = await f.call('POST', '/agents', { name, initialConfig: { systemPrompt: 'Help.', modelPreset: 'fast', limits: { maxTurns: 8 }, ...config } });
  expect(agent.status, JSON.stringify(agent.body)).toBe(201);
  return agent.body.id as string;
}

async function startSession(agentId: string, initialMessage: string) {
  const session = await f.call('POST', '/sessions', { agentId, initialMessage });
  expect(session.status, JSON.stringify(session.body)).toBe(201);
  return session.body.latestRunId as string;
}

/** A sandboxed agent (bubblewrap) whose workspace is backed up to a fresh bucket of the S3 test server. */
async function sandboxedAgent(storageKey: string, providerKey: string) {
  const server = inject('s3');
  const bucket = `svc-histories-${crypto.randomUUID().slice(0, 8)}`;
  const s3 = new S3Client({
    endpoint: server.endpoint,
    region: server.region,
    forcePathStyle: true,
    credentials: { accessKeyId: server.accessKeyId, secretAccessKey: server.secretAccessKey },
  });
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  s3.destroy();
  const storage = await f.call('POST', '/storage-providers', {
    key: storageKey,
    displayName: 'Files',
    providerType: 's3',
    endpoint: server.endpoint,
    region: server.region,
    bucket,
    prefix: 'svc',
    forcePathStyle: true,
    accessKeyId: server.accessKeyId,
    secretAccessKey: server.secretAccessKey,
    setDefault: true,
  });
  expect(storage.status, JSON.stringify(storage.body)).toBe(201);
  const provider = await f.call('POST', '/sandbox-providers', { key: providerKey, displayName: 'Local', providerType: 'sandbox_vendor', apiKey: 'local' });
  expect(provider.status, JSON.stringify(provider.body)).toBe(201);
  const snapshotId = (await f.call('GET', `/sandbox-providers/${provider.body.id}/snapshots`)).body.data[0].id;
  return createAgent('Sandboxed', {
    sandbox: { enabled: true, provider: providerKey, snapshotId, network: 'none', capabilities: ['filesystem_read', 'filesystem_write', 'shell'] },
  });
}

/** A platform tool turn (`add_numbers` of `a` and `b`), then the reply; saved as `history`. */
async function recordAddition(history: string, agentName: string, a: number, b: number) {
  f.fakes.vendor_a.reply({ toolCalls: [{ name: 'add_numbers', arguments: { a, b } }] }).reply({ text: `The sum is ${a + b}.` });
  const agentId = await createAgent(agentName, { tools: [addNumbersTool] });
  const runId = await startSession(agentId, `What is ${a} + ${b}?`);
  expect((await f.waitForRun(runId)).state).toBe('completed');
  await save(history, runWorkflowId(runId));
}

/** A coordinator's `delegate_agent` call, the child's answer, then the coordinator's reply; saved as `history`. */
async function recordDelegation(history: string, agentPrefix: string) {
  const childAgentId = await createAgent(`${agentPrefix}Child`, {});
  const [childVersion] = (await f.call('GET', `/agents/${childAgentId}/versions`)).body.data;
  f.fakes.vendor_a
    .reply({ toolCalls: [{ name: 'delegate_agent', arguments: { delegateKey: 'child', message: 'Answer briefly.' } }] })
    .reply({ text: 'Brief answer.' })
    .reply({ text: 'The child answered.' });
  const agentId = await createAgent(`${agentPrefix}Coordinator`, {
    delegates: [{ key: 'child', description: 'A child.', agentVersionId: childVersion.id, maxParallel: 1 }],
  });
  const runId = await startSession(agentId, 'Ask the child.');
  expect((await f.waitForRun(runId)).state).toBe('completed');
  await save(history, runWorkflowId(runId));
}

describe('golden histories', () => {
  it('run-one-turn: the model replies at once', async () => {
    const agentId = await createAgent('One turn', {});
    const runId = await startSession(agentId, 'Hello, agent!');
    expect((await f.waitForRun(runId)).state).toBe('completed');
    await save('run-one-turn', runWorkflowId(runId));
  });

  it('run-settled-on-reply: a platform tool turn, then a reply whose model call settles the run (admission says `settlesOnReply`)', async () => {
    await recordAddition('run-settled-on-reply', 'Adder', 2, 3);
  });

  it('run-caller-tool-approval: a caller tool behind an approval, approved, claimed and answered', async () => {
    const refundOrder = {
      name: 'refund_order',
      description: 'Refunds an order',
      owner: 'caller',
      approval: 'always',
      inputSchema: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] },
      outputSchema: { type: 'object', properties: { refunded: { type: 'boolean' } }, required: ['refunded'] },
    };
    f.fakes.vendor_a.reply({ toolCalls: [{ name: 'refund_order', arguments: { orderId: 'R1' } }] }).reply({ text: 'Refunded R1.' });
    const agentId = await createAgent('Refunds', { tools: [refundOrder] });
    const runId = await startSession(agentId, 'Refund order R1.');
    await f.waitForRun(runId, (run) => run.state === 'waiting_for_approval');
    const approval = (await f.call('GET', `/approvals?runId=${runId}`)).body.data[0];
    expect((await f.call('POST', `/approvals/${approval.id}/decision`, { status: 'approved', note: 'ok' })).status).toBe(200);
    await f.waitForRun(runId, (run) => run.state === 'waiting_for_tool');
    const call = (await f.call('GET', `/tool-calls?runId=${runId}`)).body.data.find((c: { status: string }) => c.status === 'pending');
    const claim = await f.call('POST', `/tool-calls/${call.id}/claim`);
    expect(claim.status).toBe(200);
    const result = await f.call('POST', `/tool-calls/${call.id}/result`, {
      fence: claim.body.fence,
      safeResult: { version: 1, status: 'success', value: { refunded: true } },
    });
    expect(result.status).toBe(202);
    expect((await f.waitForRun(runId)).state).toBe('completed');
    await save('run-caller-tool-approval', runWorkflowId(runId));
  });

  it('run-answered-before-wait: a caller tool answered before the run moved into its wait (issue 45), so the run reads again and goes on', async () => {
    const lookupOrder = {
      name: 'lookup_order',
      description: 'Looks up an order',
      owner: 'caller',
      approval: 'never',
      inputSchema: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] },
      outputSchema: { type: 'object', properties: { status: { type: 'string' } }, required: ['status'] },
    };
    const agentId = await createAgent('Answered early', { tools: [lookupOrder] });
    const holder = postgres(f.t.database.url!, { max: 1, onnotice: () => {} });
    closers.push(() => holder.end());
    // The run's row held while the call is answered: the move into the wait, which locks it first,
    // then finds nothing to wait on. Tried again when the run had already moved (a slow read).
    let runId = '';
    for (let attempt = 0; attempt < 10; attempt++) {
      f.fakes.vendor_a.reply({ toolCalls: [{ name: 'lookup_order', arguments: { orderId: 'A1' } }] }).reply({ text: 'A1 has shipped.' });
      runId = await startSession(agentId, 'Where is A1?');
      let callId: string | undefined;
      while (!callId) [callId] = (await f.t.database.db.select({ id: toolCalls.id }).from(toolCalls).where(eq(toolCalls.runId, runId))).map((row) => row.id);
      const heldState = await holder.begin(async (tx) => {
        const [row] = await tx<{ state: string }[]>`select state from runs where id = ${runId} for update`;
        const claim = await f.call('POST', `/tool-calls/${callId}/claim`);
        expect(claim.status).toBe(200);
        expect(
          (
            await f.call('POST', `/tool-calls/${callId}/result`, {
              fence: claim.body.fence,
              safeResult: { version: 1, status: 'success', value: { status: 'shipped' } },
            })
          ).status,
        ).toBe(202);
        return row!.state;
      });
      expect((await f.waitForRun(runId)).state).toBe('completed');
      if (heldState === 'running') break;
    }
    const kinds = (await f.t.database.db.select({ kind: productEvents.kind }).from(productEvents).where(eq(productEvents.aggregateId, runId))).map(
      (event) => event.kind,
    );
    expect(kinds).not.toContain('run.waiting_for_tool');
    await save('run-answered-before-wait', runWorkflowId(runId));
  });

  it('run-sandbox: a sandboxed agent writes a file and runs bash; the workspace is backed up', async () => {
    const agentId = await sandboxedAgent('files', 'local');
    f.fakes.vendor_a
      .reply({ toolCalls: [{ name: 'write', arguments: { path: 'notes/hello.md', content: '# Hello\n' } }] })
      .reply({ toolCalls: [{ name: 'bash', arguments: { command: 'cat notes/hello.md' } }] })
      .reply({ text: 'Done.' });
    const runId = await startSession(agentId, 'Take notes.');
    const run = await f.waitForRun(runId, undefined, 90_000);
    expect(run.state, JSON.stringify(run.failure)).toBe('completed');
    await save('run-sandbox', runWorkflowId(runId));
  });

  it('run-sandbox-follow-up: a follow-up run of a sandboxed session restores the backed-up workspace, reads the earlier file, and backs up again', async () => {
    const agentId = await sandboxedAgent('follow-up-files', 'follow-up-local');
    f.fakes.vendor_a.reply({ toolCalls: [{ name: 'write', arguments: { path: 'notes/first.md', content: '# First run\n' } }] }).reply({ text: 'Noted.' });
    const session = await f.call('POST', '/sessions', { agentId, initialMessage: 'Take a note.' });
    expect(session.status, JSON.stringify(session.body)).toBe(201);
    expect((await f.waitForRun(session.body.latestRunId, undefined, 90_000)).state).toBe('completed');
    f.fakes.vendor_a.reply({ toolCalls: [{ name: 'bash', arguments: { command: 'cat notes/first.md' } }] }).reply({ text: 'The note is still there.' });
    const followUp = await f.call('POST', `/sessions/${session.body.id}/runs`, { message: 'Read the note back.' });
    expect(followUp.status, JSON.stringify(followUp.body)).toBe(202);
    const run = await f.waitForRun(followUp.body.id, undefined, 90_000);
    expect(run.state, JSON.stringify(run.failure)).toBe('completed');
    expect(JSON.stringify(f.fakes.vendor_a.requests.at(-1)!.body)).toContain('# First run');
    await save('run-sandbox-follow-up', runWorkflowId(followUp.body.id));
  });

  it('run-mcp-approval: an MCP tool behind an approval, approved, then called on a real MCP server; the model replies', async () => {
    const mcp = await startMcpFixtureServer();
    closers.push(() => mcp.close());
    const bearer = 'mcp-history-bearer-0001';
    secrets.push(bearer);
    mcp.requireHeader('authorization', `Bearer ${bearer}`);
    const server = await f.call('POST', '/mcp-servers', { key: 'crm', displayName: 'CRM', endpointUrl: mcp.streamableUrl, transport: 'streamable_http' });
    const credential = await f.call('POST', '/mcp-credentials', { key: 'crm-token', displayName: 'CRM token', kind: 'static_bearer', secret: bearer });
    const policy = await f.call('POST', '/mcp-credential-policies', {
      key: 'crm-policy',
      displayName: 'CRM',
      credentialId: credential.body.id,
      exactOrigin: mcp.url,
      pathPrefix: '/mcp',
      timeoutMs: 5_000,
      maximumResponseBytes: 65_536,
    });
    expect(policy.status, JSON.stringify(policy.body)).toBe(201);
    const discovered = await f.call('POST', `/mcp-servers/${server.body.id}/discover`, { credentialPolicyVersionId: policy.body.id });
    expect(discovered.status, JSON.stringify(discovered.body)).toBe(201);
    const toolset = await f.call('POST', '/mcp-toolsets', {
      key: 'crm-tools',
      displayName: 'CRM tools',
      serverVersionId: discovered.body.version.id,
      tools: [{ remoteToolName: 'echo', approval: 'always' }],
    });
    expect(toolset.status, JSON.stringify(toolset.body)).toBe(201);
    const agentId = await createAgent('CRM', {
      mcpBindings: [{ toolsetVersionId: toolset.body.latestVersionId, credentialPolicyVersionId: policy.body.id, namespace: 'crm' }],
    });
    f.fakes.vendor_a.reply({ toolCalls: [{ name: 'mcp__crm__echo', arguments: { text: 'hello, CRM' } }] }).reply({ text: 'The CRM answered.' });
    const runId = await startSession(agentId, 'Ask the CRM.');
    await f.waitForRun(runId, (run) => run.state === 'waiting_for_approval');
    const approval = (await f.call('GET', `/approvals?runId=${runId}`)).body.data[0];
    expect((await f.call('POST', `/approvals/${approval.id}/decision`, { status: 'approved' })).status).toBe(200);
    expect((await f.waitForRun(runId)).state).toBe('completed');
    expect(mcp.toolCalls.map((call) => call.arguments)).toEqual([{ text: 'hello, CRM' }]);
    await save('run-mcp-approval', runWorkflowId(runId));
  });

  it('run-continue-as-new and run-continued: a run past a small history limit, both executions', async () => {
    for (let i = 0; i < 4; i++) f.fakes.vendor_a.reply({ toolCalls: [{ name: 'add_numbers', arguments: { a: i, b: 1 } }] });
    f.fakes.vendor_a.reply({ text: 'Done adding.' });
    const agentId = await createAgent('Long', { tools: [addNumbersTool], limits: { maxTurns: 16 } });
    const live = f.starter.target;
    f.starter.target = null; // started below, with a small history limit
    const runId = await startSession(agentId, 'Add four times.');
    f.starter.target = live;
    const started = await client.workflow.start(RUN_WORKFLOW_TYPE, {
      workflowId: runWorkflowId(runId),
      taskQueue: f.runtime.taskQueue,
      args: [{ runId, historyEventLimit: 40 }],
      workflowIdConflictPolicy: 'USE_EXISTING',
    });
    expect((await f.waitForRun(runId)).state).toBe('completed');
    const first = await save('run-continue-as-new', runWorkflowId(runId), started.firstExecutionRunId);
    const continued = first.events!.at(-1)!.workflowExecutionContinuedAsNewEventAttributes;
    expect(continued?.newExecutionRunId).toBeTruthy();
    const second = await save('run-continued', runWorkflowId(runId), continued!.newExecutionRunId!);
    // Exactly two executions: the continued one completes the run.
    expect(second.events!.at(-1)!.workflowExecutionCompletedEventAttributes).toBeTruthy();
  });

  it('run-harness-operation: an operation call whose sub-loop uses a platform tool, then answers', async () => {
    f.fakes.vendor_a
      .reply({ toolCalls: [{ name: 'summarize', arguments: { task: 'Summarize: all good.' } }] })
      .reply({ toolCalls: [{ name: 'add_numbers', arguments: { a: 1, b: 2 } }] })
      .reply({ text: '{"summary":"All good.","words":2}' })
      .reply({ text: 'Summarized.' });
    const agentId = await createAgent('Operator', {
      tools: [addNumbersTool],
      harnessOperations: [
        {
          key: 'summarize',
          description: 'Summarizes a text.',
          instructions: 'Be brief.',
          resultSchema: { type: 'object', properties: { summary: { type: 'string' }, words: { type: 'integer' } }, required: ['summary', 'words'] },
          timeoutMs: 60_000,
        },
      ],
    });
    const runId = await startSession(agentId, 'Summarize it.');
    expect((await f.waitForRun(runId)).state).toBe('completed');
    await save('run-harness-operation', runWorkflowId(runId));
  });

  it('run-delegation: a coordinator delegates to a child agent (a child workflow) and replies with its answer', async () => {
    await recordDelegation('run-delegation', '');
  });

  it('run-tool-steps-folded: a platform tool turn whose recording reads the progress and whose results resume the run (issue 33), then the reply', async () => {
    await recordAddition('run-tool-steps-folded', 'Folded adder', 4, 5);
  });

  it('run-delegation-folded: a delegation whose finish reads the progress and whose results resume the run (issue 33)', async () => {
    await recordDelegation('run-delegation-folded', 'Folded ');
  });

  it('run-delegation-one-step-each: a delegation queued by the step that records the calls, whose finish resumes the run (issue 33)', async () => {
    await recordDelegation('run-delegation-one-step-each', 'One-step ');
  });

  it('run-delegation-parallel: two delegations of one turn run together, the last finish resumes the run (issue 49)', async () => {
    const childAgentId = await createAgent('Parallel child', {});
    const [childVersion] = (await f.call('GET', `/agents/${childAgentId}/versions`)).body.data;
    f.fakes.vendor_a
      .reply({
        toolCalls: [
          { name: 'delegate_agent', arguments: { delegateKey: 'child', message: 'First part.' } },
          { name: 'delegate_agent', arguments: { delegateKey: 'child', message: 'Second part.' } },
        ],
      })
      .reply({ text: 'A part.' })
      .reply({ text: 'A part.' })
      .reply({ text: 'Both parts are in.' });
    const agentId = await createAgent('Parallel coordinator', {
      delegates: [{ key: 'child', description: 'A child.', agentVersionId: childVersion.id, maxParallel: 2 }],
    });
    const runId = await startSession(agentId, 'Ask two children.');
    expect((await f.waitForRun(runId)).state).toBe('completed');
    await save('run-delegation-parallel', runWorkflowId(runId));
  });

  it('run-deferred-admission: the project runs its limit of one run, so a second run waits queued and is woken when the first settles', async () => {
    f.fakes.vendor_a.reply({ text: 'The slow answer.', delayMs: 1_500 });
    const agentId = await createAgent('Deferred admission', {});
    const first = await startSession(agentId, 'First, slowly.');
    await f.waitForRun(first, (run) => run.state === 'running');
    const second = await startSession(agentId, 'Second, when there is room.');
    expect((await f.waitForRun(first)).state).toBe('completed');
    expect((await f.waitForRun(second)).state).toBe('completed');
    const history = await save('run-deferred-admission', runWorkflowId(second));
    const signals = history
      .events!.filter((event) => event.workflowExecutionSignaledEventAttributes)
      .map((event) => event.workflowExecutionSignaledEventAttributes!.signalName);
    expect(signals).toEqual(['capacityFreed']);
  });

  it('webhook-delivery: 150 events delivered in batches, an idle wait, then disabled (the workflow ends)', async () => {
    const { context } = await f.t.login();
    const hooks = await startWebhookReceiver();
    receivers.push(hooks);
    const signingSecret = newSigningSecret();
    secrets.push(signingSecret);
    const base = `/v1/projects/${context.project.id}/event-webhooks`;
    const request = async (method: string, url: string, body?: unknown) => {
      const response = await f.t.request(method, url, { apiKey: admin, body });
      return { status: response.status, body: await response.json() };
    };
    const created = await request('POST', base, { displayName: 'Recorder', endpointUrl: hooks.url, signingSecret });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const webhookId = created.body.id as string;
    const ctx = systemContext({ db: f.t.database.db, logger: f.t.deps.logger, clock: f.t.deps.clock });
    const events = await appendProductEvents(ctx, {
      organizationId: context.organization.id,
      projectId: context.project.id,
      events: Array.from({ length: 150 }, (_, index) => ({
        aggregateType: 'test',
        aggregateId: crypto.randomUUID(),
        kind: 'test.appended',
        publicPayload: { index },
      })),
    });
    const tail = events.at(-1)!.projectPosition;
    const deadline = Date.now() + 30_000;
    for (;;) {
      const webhook = await request('GET', `${base}/${webhookId}`);
      if (webhook.body.deliveredPosition === tail) break;
      if (Date.now() > deadline) throw new Error(`webhook never delivered: ${JSON.stringify(webhook.body)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(hooks.requests.length).toBeGreaterThanOrEqual(2);
    // Once the workflow waits idle (its re-check timer started), disable the webhook: the signal wakes it and it ends.
    const handle = client.workflow.getHandle(webhookWorkflowId(webhookId));
    const { runId } = await handle.describe();
    while (!(await handle.fetchHistory()).events!.some((event) => event.timerStartedEventAttributes)) {
      if (Date.now() > deadline) throw new Error('the webhook workflow never waited idle');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect((await request('PATCH', `${base}/${webhookId}`, { enabled: false })).status).toBe(200);
    const history = await save('webhook-delivery', webhookWorkflowId(webhookId), runId);
    expect(history.events!.at(-1)!.workflowExecutionCompletedEventAttributes).toBeTruthy();
  });

  it('scheduled-firing: a schedule triggered once; its firing makes a session and its run (a local activity), then waits for the run to settle', async () => {
    const agentId = await createAgent('Scheduled', {});
    const created = await f.call('POST', '/schedules', { agentId, message: 'Report, please.', intervalSeconds: 3600, paused: true });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect((await f.call('POST', `/schedules/${created.body.id}/trigger`)).status).toBe(202);
    const deadline = Date.now() + 30_000;
    let firing: { firingKey: string; runId: string | null } | undefined;
    while (!firing?.runId) {
      if (Date.now() > deadline) throw new Error('the schedule never fired');
      await new Promise((resolve) => setTimeout(resolve, 100));
      [firing] = await f.t.database.db.select().from(scheduleFirings).where(eq(scheduleFirings.scheduleId, created.body.id));
    }
    expect((await f.waitForRun(firing.runId)).state).toBe('completed');
    await save('scheduled-firing', firing.firingKey);
    expect((await f.call('DELETE', `/schedules/${created.body.id}`)).status).toBe(200);
  });
});
