import { Role, TaskState, type Message, type StreamResponse, type Task } from '@a2a-js/sdk';
import { ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory, RestTransportFactory, type Client } from '@a2a-js/sdk/client';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runExample } from '../../../test/support/run-example.ts';
import { createForeignOrganization } from '../../../test/support/foreign-organization.ts';
import { metricsRegistry } from '../../../services/kernel/metrics/index.ts';
import { a2aDoorApp } from '../api/app.ts';
import { serveApp, type ServedApp } from '../../../test/support/http-server.ts';
import { startRunApp } from '../../../test/support/run-app.ts';
import { createTestAgent } from '../../../test/support/test-agents.ts';

/**
 * The A2A door through the unmodified official `@a2a-js/sdk` client (docs/decisions/a2a-door.md):
 * cards, blocking and streamed messages on one context, tasks listed and read, a cancel, a
 * stream resumed after the client went away, an approval through input-required, both
 * bindings; strangers, scope-less keys and malformed JSON-RPC refused with the spec's codes.
 */
let f: Awaited<ReturnType<typeof startRunApp>>;
let served: ServedApp;
let agent: { id: string; versionId: string };

const authed =
  (apiKey: string): typeof fetch =>
  (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('Authorization', `Bearer ${apiKey}`);
    return fetch(input, { ...init, headers });
  };
const endpoint = (agentId: string, projectId = f.projectId) => `${served.baseUrl}/a2a/${projectId}/agents/${agentId}`;
async function clientOf(agentId: string, options: { apiKey?: string; binding?: 'JSONRPC' | 'HTTP+JSON' } = {}): Promise<Client> {
  const fetchImpl = authed(options.apiKey ?? f.apiKey);
  const factory = new ClientFactory({
    transports: [new JsonRpcTransportFactory({ fetchImpl }), new RestTransportFactory({ fetchImpl })],
    preferredTransports: [options.binding ?? 'JSONRPC'],
    cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
  });
  return factory.createFromUrl(`${endpoint(agentId)}/`);
}
const userMessage = (text: string, ids: { contextId?: string; taskId?: string } = {}, data?: unknown): Message => ({
  messageId: randomUUID(),
  contextId: ids.contextId ?? '',
  taskId: ids.taskId ?? '',
  role: Role.ROLE_USER,
  parts: [
    ...(text ? [{ content: { $case: 'text' as const, value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' }] : []),
    ...(data ? [{ content: { $case: 'data' as const, value: data }, metadata: undefined, filename: '', mediaType: 'application/json' }] : []),
  ],
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
});
const send = (client: Client, message: Message, returnImmediately = false) =>
  client.sendMessage({
    tenant: '',
    message,
    configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately },
    metadata: undefined,
  });
const asTask = (result: Message | Task) => {
  if ('messageId' in result) throw new Error('expected a task');
  return result;
};
const textOf = (task: Task) =>
  task.artifacts.flatMap((artifact) => artifact.parts.map((part) => (part.content?.$case === 'text' ? part.content.value : ''))).join('');
const until = async <T>(read: () => Promise<T>, done: (value: T) => boolean, what: string) => {
  for (let i = 0; ; i++) {
    const value = await read();
    if (done(value)) return value;
    if (i > 600) throw new Error(`never: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};
const rpc = (body: string, headers: Record<string, string> = { 'A2A-Version': '1.0' }, apiKey = f.apiKey) =>
  fetch(endpoint(agent.id), { method: 'POST', headers: { 'content-type': 'application/json', Authorization: `Bearer ${apiKey}`, ...headers }, body });

beforeAll(async () => {
  f = await startRunApp();
  served = await serveApp(f.t.app.fetch);
  const created = await f.call('POST', '/agents', {
    name: `Capital finder ${randomUUID().slice(0, 6)}`,
    description: 'Finds the capital of a country.',
    initialConfig: { systemPrompt: 'You find capitals.', modelPreset: 'fast', limits: { maxTurns: 8 } },
  });
  agent = { id: created.body.id, versionId: created.body.latestVersionId };
}, 120_000);
afterAll(async () => {
  await served?.close();
  await f?.close();
});

describe('the A2A door through the official SDK', () => {
  it('serves each agent a card the SDK reads, and lists the cards the key may use', async () => {
    const list = await fetch(`${served.baseUrl}/a2a/${f.projectId}/agents`, { headers: { Authorization: `Bearer ${f.apiKey}` } });
    expect(list.status).toBe(200);
    const { agentCards } = (await list.json()) as { agentCards: Array<Record<string, unknown>> };
    const card = agentCards.find((entry) => (entry.supportedInterfaces as Array<{ url: string }>)[0]!.url === endpoint(agent.id));
    expect(card).toMatchObject({
      capabilities: { streaming: true, pushNotifications: false },
      supportedInterfaces: [
        { url: endpoint(agent.id), protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        { url: endpoint(agent.id), protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      ],
      securitySchemes: { apiKey: { httpAuthSecurityScheme: { scheme: 'Bearer' } } },
    });
    const client = await clientOf(agent.id);
    const read = await client.getAgentCard();
    expect(read.name).toMatch(/^Capital finder/);
    expect(read.skills[0]!.description).toBe('Finds the capital of a country.');
    // Without a key nothing shows.
    expect((await fetch(`${endpoint(agent.id)}/.well-known/agent-card.json`)).status).toBe(401);
  });

  it('answers a blocking message, streams a follow-up on its contextId (chunks before the final artifact), and lists and reads the tasks', async () => {
    const client = await clientOf(agent.id);
    f.fakes.vendor_a.reply({ text: 'Paris is the capital of France.' });
    const first = asTask(await send(client, userMessage('What is the capital of France?')));
    expect(first.status!.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(first)).toBe('Paris is the capital of France.');
    expect(first.history.map((message) => message.role)).toEqual([Role.ROLE_USER, Role.ROLE_AGENT]);

    f.fakes.vendor_a.reply({ text: 'Rome is the capital of Italy.', chunkSize: 3, chunkDelayMs: 40 });
    const events: StreamResponse[] = [];
    for await (const event of client.sendMessageStream({
      tenant: '',
      message: userMessage('And of Italy?', { contextId: first.contextId }),
      configuration: undefined,
      metadata: undefined,
    }))
      events.push(event);
    expect(events[0]!.payload?.$case).toBe('task');
    const second = events[0]!.payload!.value as Task;
    expect(second.contextId).toBe(first.contextId);
    const cases = events.map((event) => event.payload?.$case);
    const chunks = events.filter((event) => event.payload?.$case === 'artifactUpdate' && !event.payload.value.lastChunk);
    expect(chunks.length).toBeGreaterThan(1);
    const last = events.at(-1)!.payload!;
    expect(last.$case).toBe('statusUpdate');
    expect(last.$case === 'statusUpdate' && last.value.status!.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const final = events.findIndex((event) => event.payload?.$case === 'artifactUpdate' && event.payload.value.lastChunk);
    expect(final, JSON.stringify(cases)).toBeGreaterThan(cases.indexOf('artifactUpdate'));
    const streamedText = chunks.reduce((text, event) => {
      const update = event.payload!.value as { append: boolean; artifact: { parts: Array<{ content?: { value: unknown } }> } };
      const piece = String(update.artifact.parts[0]!.content!.value);
      return update.append ? text + piece : piece;
    }, '');
    expect(streamedText).toBe('Rome is the capital of Italy.');
    // The model saw the first exchange: one conversation.
    expect(JSON.stringify(f.fakes.vendor_a.requests.at(-1)!.body)).toContain('Paris is the capital of France.');

    const read = await client.getTask({ tenant: '', id: second.id, historyLength: 1 });
    expect(read.status!.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(read)).toBe('Rome is the capital of Italy.');
    expect(read.history).toHaveLength(1);
    const listed = await client.listTasks({
      tenant: '',
      contextId: first.contextId,
      status: TaskState.TASK_STATE_UNSPECIFIED,
      pageSize: 1,
      pageToken: '',
      statusTimestampAfter: undefined,
    });
    expect(listed.totalSize).toBe(2);
    expect(listed.tasks.map((task) => task.id)).toEqual([second.id]);
    const next = await client.listTasks({
      tenant: '',
      contextId: first.contextId,
      status: 0,
      pageSize: 1,
      pageToken: listed.nextPageToken,
      statusTimestampAfter: undefined,
    });
    expect(next.tasks.map((task) => task.id)).toEqual([first.id]);
    expect(next.nextPageToken).toBe('');
  });

  it('treats a resent message (the same messageId) as the same task; the same id with other text is refused', async () => {
    const client = await clientOf(agent.id);
    f.fakes.vendor_a.reply({ text: 'Bern.' });
    const message = userMessage('The capital of Switzerland?');
    const calls = f.fakes.vendor_a.requests.length;
    const first = asTask(await send(client, message));
    const again = asTask(await send(client, message));
    expect(again.id).toBe(first.id);
    expect(textOf(again)).toBe('Bern.');
    expect(f.fakes.vendor_a.requests.length).toBe(calls + 1);
    await expect(send(client, { ...message, parts: userMessage('Something else?').parts })).rejects.toMatchObject({ name: 'UnsupportedOperationError' });
  });

  it('cancels a long task: it ends cancelled and no model call starts afterwards', async () => {
    const client = await clientOf(agent.id);
    let release!: () => void;
    f.fakes.vendor_a.reply({ text: 'Too late.', heldUntil: new Promise<void>((resolve) => (release = resolve)) });
    const before = f.fakes.vendor_a.requests.length;
    const task = asTask(await send(client, userMessage('Take your time.'), true));
    expect([TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING]).toContain(task.status!.state);
    await until(
      async () => f.fakes.vendor_a.requests.length,
      (count) => count > before,
      'the model call started',
    );
    const cancelled = await client.cancelTask({ tenant: '', id: task.id, metadata: undefined });
    expect(cancelled.status!.state).toBe(TaskState.TASK_STATE_CANCELED);
    release();
    const calls = f.fakes.vendor_a.requests.length;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(f.fakes.vendor_a.requests.length).toBe(calls);
    await expect(client.cancelTask({ tenant: '', id: task.id, metadata: undefined })).rejects.toMatchObject({ name: 'TaskNotCancelableError' });
  });

  it('stops following a blocking task when its caller goes away (the run goes on), and gives its place back', async () => {
    const client = await clientOf(agent.id);
    let release!: () => void;
    f.fakes.vendor_a.reply({ text: 'Eventually.', heldUntil: new Promise<void>((resolve) => (release = resolve)) });
    const before = f.t.deps.eventTail.stats().subscribers;
    const calls = f.fakes.vendor_a.requests.length;
    const abort = new AbortController();
    const blocking = client.sendMessage(
      { tenant: '', message: userMessage('Wait for it.'), configuration: undefined, metadata: undefined },
      { signal: abort.signal },
    );
    await until(
      async () => f.fakes.vendor_a.requests.length,
      (count) => count > calls,
      'the model call started',
    );
    expect(f.t.deps.eventTail.stats().subscribers).toBeGreaterThan(before);
    abort.abort();
    await expect(blocking).rejects.toThrow();
    await until(
      async () => f.t.deps.eventTail.stats().subscribers,
      (count) => count === before,
      'the follower let go',
    );
    release();
    // The task itself was not the caller's connection: it completes.
    const [task] = (await client.listTasks({ tenant: '', contextId: '', status: 0, pageSize: 1, pageToken: '', statusTimestampAfter: undefined })).tasks;
    await until(
      async () => client.getTask({ tenant: '', id: task!.id }),
      (read) => read.status!.state === TaskState.TASK_STATE_COMPLETED,
      'the task completed',
    );
  });

  it('resumes a stream after the client went away: SubscribeToTask sends the task, the answer so far and the rest', async () => {
    const client = await clientOf(agent.id);
    const answer = 'Canberra is the capital of Australia, not Sydney.';
    f.fakes.vendor_a.reply({ text: answer, chunkSize: 4, chunkDelayMs: 60 });
    const abort = new AbortController();
    let taskId = '';
    const stream = client.sendMessageStream(
      { tenant: '', message: userMessage('And of Australia?'), configuration: undefined, metadata: undefined },
      { signal: abort.signal },
    );
    for await (const event of stream) {
      if (event.payload?.$case === 'task') taskId = event.payload.value.id;
      if (event.payload?.$case === 'artifactUpdate') break; // the client goes away mid-answer
    }
    abort.abort();
    expect(taskId).not.toBe('');
    const events: StreamResponse[] = [];
    for await (const event of client.resubscribeTask({ tenant: '', id: taskId })) events.push(event);
    expect(events[0]!.payload?.$case).toBe('task');
    const final = events.find((event) => event.payload?.$case === 'artifactUpdate' && event.payload.value.lastChunk);
    expect(final && final.payload?.$case === 'artifactUpdate' && final.payload.value.artifact!.parts[0]!.content!.value).toBe(answer);
    const last = events.at(-1)!.payload!;
    expect(last.$case === 'statusUpdate' && last.value.status!.state).toBe(TaskState.TASK_STATE_COMPLETED);
    // A task that has ended is read, not followed.
    await expect(async () => {
      for await (const _ of client.resubscribeTask({ tenant: '', id: taskId }));
    }).rejects.toThrow(/ended/);
  });

  it('drives an approval through input-required: the status names it, a reply with the decision resumes the task', async () => {
    const gated = await createTestAgent(f, 'Refunder', {
      tools: [
        {
          name: 'issue_refund',
          description: 'Refunds an order',
          owner: 'caller',
          approval: 'always',
          inputSchema: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] },
          outputSchema: { type: 'object', properties: { refunded: { type: 'boolean' } }, required: ['refunded'] },
        },
      ],
    });
    const client = await clientOf(gated.id);
    f.fakes.vendor_a.reply({ toolCalls: [{ name: 'issue_refund', arguments: { orderId: 'A1' } }] }).reply({ text: 'Refunded A1.' });
    const waiting = asTask(await send(client, userMessage('Refund order A1.')));
    expect(waiting.status!.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const parts = waiting.status!.message!.parts;
    expect(parts[0]!.content!.value).toMatch(/Waiting for approval of the tool issue_refund/);
    const pending = (parts[1]!.content!.value as { pending: { approvals: Array<{ approvalId: string }> } }).pending;
    expect(pending.approvals).toHaveLength(1);

    // Approved, the caller-owned tool is next: the task asks for its result.
    const needsResult = asTask(
      await send(
        client,
        userMessage(
          '',
          { taskId: waiting.id, contextId: waiting.contextId },
          { approval: { approvalId: pending.approvals[0]!.approvalId, decision: 'approve' } },
        ),
      ),
    );
    expect(needsResult.status!.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const owed = (needsResult.status!.message!.parts[1]!.content!.value as { pending: { toolCalls: Array<{ toolCallId: string; toolName: string }> } }).pending;
    expect(owed.toolCalls.map((call) => call.toolName)).toEqual(['issue_refund']);
    const done = asTask(
      await send(client, userMessage('', { taskId: waiting.id }, { toolResult: { toolCallId: owed.toolCalls[0]!.toolCallId, value: { refunded: true } } })),
    );
    expect(done.status!.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(done)).toBe('Refunded A1.');
    expect(JSON.stringify(f.fakes.vendor_a.requests.at(-1)!.body)).toContain('refunded');
    // An ended task takes no more answers.
    await expect(send(client, userMessage('Again.', { taskId: waiting.id }))).rejects.toMatchObject({ name: 'UnsupportedOperationError' });
  });

  it('runs the example of docs/agent-protocols.md', async () => {
    f.fakes.vendor_a.reply({ text: 'Hello there.' }).reply({ text: 'Goodbye now.', chunkSize: 4, chunkDelayMs: 20 });
    const output = await runExample('docs/examples/a2a-client.ts', { A2A_AGENT_URL: `${endpoint(agent.id)}/`, SVC_API_KEY: f.apiKey });
    expect(output).toContain('TASK_STATE_COMPLETED: Hello there.');
    expect(output).toContain('follow-up: TASK_STATE_COMPLETED: Goodbye now.');
  });

  it('is counted in the request metrics by its route patterns, like the native routes', async () => {
    await (await clientOf(agent.id)).getAgentCard();
    expect((await rpc(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: randomUUID() } }))).status).toBe(200);
    const text = await metricsRegistry.metrics();
    expect(text).toMatch(/agent_runtime_http_requests_total\{method="POST",route="\/a2a\/:projectId\/agents\/:agentId",status="200"\}/);
    expect(text).toMatch(/route="\/a2a\/:projectId\/agents\/:agentId\/.well-known\/agent-card.json"/);
  });

  it('speaks the HTTP+JSON binding too', async () => {
    const client = await clientOf(agent.id, { binding: 'HTTP+JSON' });
    f.fakes.vendor_a.reply({ text: 'Ottawa.' });
    const task = asTask(await send(client, userMessage('The capital of Canada?')));
    expect(task.status!.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(await client.getTask({ tenant: '', id: task.id }))).toBe('Ottawa.');
    await expect(client.getTask({ tenant: '', id: randomUUID() })).rejects.toMatchObject({ name: 'TaskNotFoundError' });
  });
});

describe('who may call, and malformed requests', () => {
  it("another organization's key sees nothing of the project, and a scope-less key is refused", async () => {
    f.fakes.vendor_a.reply({ text: 'Mine.' });
    const own = asTask(await send(await clientOf(agent.id), userMessage('Hello?')));
    const foreign = await createForeignOrganization(f.t);
    const stranger = (path: string) => fetch(`${served.baseUrl}/a2a/${f.projectId}${path}`, { headers: { Authorization: `Bearer ${foreign.apiKey}` } });
    // The core's rule for keys: a project outside the key's organization is a 403, naming nothing of it.
    const listing = await stranger('/agents');
    expect(listing.status).toBe(403);
    expect(await listing.text()).not.toContain(agent.id);
    expect((await stranger(`/agents/${agent.id}/.well-known/agent-card.json`)).status).toBe(403);
    const probe = await rpc(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: own.id } }), { 'A2A-Version': '1.0' }, foreign.apiKey);
    expect(probe.status).toBe(403);
    expect(await probe.text()).not.toContain(own.id);
    // On its own project the stranger finds none of our agents.
    const elsewhere = await fetch(`${served.baseUrl}/a2a/${foreign.projectId}/agents/${agent.id}/.well-known/agent-card.json`, {
      headers: { Authorization: `Bearer ${foreign.apiKey}` },
    });
    expect(elsewhere.status).toBe(404);

    // A key with none of the scopes the door's verbs need.
    const scopeless = (await f.t.createApiKey(['usage:read'], 'no door scopes')).secret;
    expect((await fetch(`${served.baseUrl}/a2a/${f.projectId}/agents`, { headers: { Authorization: `Bearer ${scopeless}` } })).status).toBe(403);
    const refused = await rpc(
      JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'SendMessage', params: { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hi' }] } } }),
      undefined,
      scopeless,
    );
    expect(refused.status).toBe(403);
    // Another key of the same project does not see this key's tasks either.
    const reader = (await f.t.createApiKey(['session:read', 'run:read', 'agent:read'], 'reader')).secret;
    await expect((await clientOf(agent.id, { apiKey: reader })).getTask({ tenant: '', id: own.id })).rejects.toMatchObject({ name: 'TaskNotFoundError' });
  });

  it('is switched off per project (PATCH /projects/{id} agentProtocols) and per installation (SVC_A2A_SERVER)', async () => {
    const card = () => fetch(`${endpoint(agent.id)}/.well-known/agent-card.json`, { headers: { Authorization: `Bearer ${f.apiKey}` } });
    const project = (agentProtocols: Record<string, boolean>) =>
      f.t.request('PATCH', `/v1/projects/${f.projectId}`, { apiKey: f.apiKey, body: { agentProtocols } });
    expect((await project({ a2a: false })).status).toBe(200);
    try {
      const off = await card();
      expect(off.status).toBe(404);
      expect(await off.text()).toContain('does not serve its agents over A2A');
    } finally {
      expect((await project({ a2a: true })).status).toBe(200);
    }
    expect((await card()).status).toBe(200);
    const installation = a2aDoorApp({ ...f.t.deps, settings: { ...f.t.deps.settings, doors: { a2a: false, mcp: true } } });
    const response = await installation.request(`/${f.projectId}/agents`, { headers: { Authorization: `Bearer ${f.apiKey}` } });
    expect(response.status).toBe(404);
  });

  it('answers malformed JSON-RPC with the codes of JSON-RPC and A2A', async () => {
    const codeOf = async (response: Response) => ((await response.json()) as { error: { code: number } }).error.code;
    expect(await codeOf(await rpc('{not json'))).toBe(-32700);
    expect(await codeOf(await rpc(JSON.stringify({ id: 1, method: 'GetTask', params: {} })))).toBe(-32600);
    expect(await codeOf(await rpc(JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'GetTask', params: {} }])))).toBe(-32600);
    expect(await codeOf(await rpc(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'NoSuchMethod', params: {} })))).toBe(-32601);
    expect(await codeOf(await rpc(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: ['x'] })))).toBe(-32602);
    expect(await codeOf(await rpc(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: randomUUID() } })))).toBe(-32001);
    expect(await codeOf(await rpc(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: 'm', parts: [] } } })))).toBe(
      -32602,
    );
    expect(
      await codeOf(
        await rpc(
          JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: 'm', parts: [{ url: 'https://x/y.pdf' }] } } }),
        ),
      ),
    ).toBe(-32005);
    expect(await codeOf(await rpc(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'CreateTaskPushNotificationConfig', params: { taskId: 'x' } })))).toBe(
      -32003,
    );
    // Shapes the SDK's codecs cannot read, and values out of range: invalid params, never an internal error.
    for (const [method, params] of [
      ['SendMessage', { message: { messageId: 'm', parts: [null] } }],
      ['SendMessage', { message: { messageId: 'm', parts: [{ text: 'hi' }] }, configuration: { historyLength: -1 } }],
      ['ListTasks', { status: 'TASK_STATE_NOPE' }],
      ['ListTasks', { pageToken: 'not-ours' }],
      ['ListTasks', { pageSize: 101 }],
    ] as const)
      expect(await codeOf(await rpc(JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }))), `${method} ${JSON.stringify(params)}`).toBe(-32602);
    const rest = await fetch(`${endpoint(agent.id)}/message:send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', Authorization: `Bearer ${f.apiKey}`, 'A2A-Version': '1.0' },
      body: JSON.stringify({ message: { messageId: 'm', parts: [null] } }),
    });
    expect(rest.status).toBe(400);
    expect(((await rest.json()) as { error: { status: string } }).error.status).toBe('INVALID_ARGUMENT');
    // Without A2A-Version the caller speaks 0.3, which this server does not.
    expect(await codeOf(await rpc(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } }), {}))).toBe(-32009);
  });
});
