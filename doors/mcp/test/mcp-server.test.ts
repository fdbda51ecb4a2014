import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { runExample } from '../../../test/support/run-example.ts';
import { createApp } from '../../../api/app.ts';
import { createEventStreamPlaces } from '../../../api/event-stream-places.ts';
import { createForeignOrganization } from '../../../test/support/foreign-organization.ts';
import { serveApp, type ServedApp } from '../../../test/support/http-server.ts';
import { startRunApp } from '../../../test/support/run-app.ts';
import { ORDER, tool } from '../../../test/support/tool-call-app.ts';

/**
 * The MCP server door (issue 50 part 2) through the official MCP SDK client, unmodified, over
 * real HTTP against the whole app with a worker and the fake model vendors: a project's agents as
 * tools, a call as one turn with progress from the reply being written, a follow-up on the same
 * session, cancellation (by the client's signal and by the connection closing), a run waiting for
 * the caller, and the refusals (scopes, keys, other organizations, the switch).
 */
let f: Awaited<ReturnType<typeof startRunApp>>;
let served: ServedApp;
const clients: Client[] = [];

const LONG = 'The agent writes its answer piece by piece, and the caller hears it grow before the result. '.repeat(3).trim();
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

beforeAll(async () => {
  f = await startRunApp();
  served = await serveApp(f.t.app.fetch);
}, 120_000);
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});
afterAll(async () => {
  await served?.close();
  await f?.close();
});

const endpoint = (projectId: string = f.projectId) => new URL(`${served.baseUrl}/mcp/${projectId}`);

async function connect(apiKey: string = f.apiKey, projectId: string = f.projectId): Promise<Client> {
  const client = new Client({ name: 'door-test', version: '1.0.0' });
  clients.push(client);
  await client.connect(new StreamableHTTPClientTransport(endpoint(projectId), { requestInit: { headers: { Authorization: `Bearer ${apiKey}` } } }));
  return client;
}

/** A published agent and its key (its tool's name). */
async function agent(name: string, options: { description?: string; tools?: unknown[] } = {}) {
  const created = await f.call('POST', '/agents', {
    name: `${name} ${randomUUID().slice(0, 6)}`,
    ...(options.description ? { description: options.description } : {}),
    initialConfig: { systemPrompt: `You are ${name}.`, modelPreset: 'fast', limits: { maxTurns: 8 }, ...(options.tools ? { tools: options.tools } : {}) },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return { id: created.body.id as string, key: created.body.key as string, name: created.body.name as string };
}

type RpcErrorBody = { jsonrpc: '2.0'; error: { code: number; message: string; data?: unknown }; id: null };

const textOf = (result: CallToolResult) => result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');

async function rejection(promise: Promise<unknown>): Promise<Error & { code?: number }> {
  try {
    await promise;
  } catch (error) {
    return error as Error & { code?: number };
  }
  throw new Error('expected a refusal');
}

/** The latest run of the agent's only session, once the door has opened it. */
async function latestRunOf(agentId: string): Promise<string> {
  let runId: string | null = null;
  await vi.waitFor(
    async () => {
      const listed = await f.call('GET', `/sessions?agentId=${agentId}`);
      runId = listed.body.data[0]?.latestRunId ?? null;
      expect(runId).not.toBeNull();
    },
    { timeout: 30_000, interval: 100 },
  );
  return runId!;
}

const waitForModelCalls = (count: number) =>
  vi.waitFor(() => expect(f.fakes.vendor_a.requests.length).toBeGreaterThanOrEqual(count), { timeout: 30_000, interval: 50 });

describe('tools/list', () => {
  it('lists one tool per live agent: its key as the name, its description (else its name), the message schema', async () => {
    const researcher = await agent('Researcher', { description: 'Finds things out.' });
    const writer = await agent('Writer');
    const gone = await agent('Gone');
    expect((await f.call('DELETE', `/agents/${gone.id}`)).status).toBeLessThan(300);

    const { tools } = await (await connect()).listTools();
    const byName = new Map(tools.map((entry) => [entry.name, entry]));
    expect(byName.get(gone.key)).toBeUndefined();
    expect(byName.get(researcher.key)).toMatchObject({ name: researcher.key, title: researcher.name, description: 'Finds things out.' });
    expect(byName.get(writer.key)).toMatchObject({ name: writer.key, description: writer.name });
    for (const entry of [byName.get(researcher.key)!, byName.get(writer.key)!]) {
      expect(entry.inputSchema).toMatchObject({
        type: 'object',
        properties: { message: { type: 'string' }, sessionId: { type: 'string', description: expect.stringContaining('continue this conversation') } },
        required: ['message'],
      });
      expect(entry.outputSchema).toMatchObject({ type: 'object', required: ['sessionId', 'runId', 'state'] });
    }
  });
});

describe('tools/call', () => {
  it('answers after one turn with the sessionId, streaming progress notifications first; a follow-up continues the session', async () => {
    const bot = await agent('Streamer');
    const client = await connect();
    await client.listTools();
    // 8 characters every 30 ms (about a second in all): the door hears the reply grow.
    f.fakes.vendor_a.reply({ text: LONG, chunkSize: 8, chunkDelayMs: 30 });
    const heard: Array<{ at: 'progress'; progress: Progress } | { at: 'result' }> = [];
    const result = (await client.callTool({ name: bot.key, arguments: { message: 'Tell me everything.' } }, undefined, {
      onprogress: (progress) => heard.push({ at: 'progress', progress }),
    })) as CallToolResult;
    heard.push({ at: 'result' });

    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe(LONG);
    const first = result.structuredContent as { answer: string; sessionId: string; runId: string; state: string };
    expect(first).toEqual({ answer: LONG, sessionId: expect.stringMatching(UUID), runId: expect.stringMatching(UUID), state: 'completed' });
    const progress = heard.flatMap((entry) => (entry.at === 'progress' ? [entry.progress] : []));
    expect(progress.length).toBeGreaterThan(0);
    expect(heard[0]!.at).toBe('progress');
    expect(heard.at(-1)!.at).toBe('result');
    for (const [i, entry] of progress.entries()) {
      expect(LONG).toContain(entry.message);
      if (i > 0) expect(entry.progress).toBeGreaterThan(progress[i - 1]!.progress);
    }
    const run = await f.call('GET', `/runs/${first.runId}`);
    expect(run.body).toMatchObject({ state: 'completed', sessionId: first.sessionId });

    f.fakes.vendor_a.reply({ text: 'And one more thing.' });
    const calls = f.fakes.vendor_a.requests.length;
    const second = (await client.callTool({ name: bot.key, arguments: { message: 'Anything else?', sessionId: first.sessionId } })) as CallToolResult;
    expect(textOf(second)).toBe('And one more thing.');
    expect(second.structuredContent).toMatchObject({ sessionId: first.sessionId, state: 'completed' });
    expect((second.structuredContent as { runId: string }).runId).not.toBe(first.runId);
    // The model's request of the second turn carries the first exchange.
    const request = JSON.stringify(f.fakes.vendor_a.requests[calls]!.body);
    expect(request).toContain('Tell me everything.');
    expect(request).toContain(LONG);
    expect(request).toContain('Anything else?');
  });

  it('runs the example of docs/agent-protocols.md', async () => {
    const greeter = await agent('Greeter');
    f.fakes.vendor_a.reply({ text: 'Hello there.', chunkSize: 4, chunkDelayMs: 20 }).reply({ text: 'Goodbye now.' });
    const output = await runExample('docs/examples/mcp-client.ts', { MCP_URL: endpoint().href, SVC_API_KEY: f.apiKey, MCP_TOOL: greeter.key });
    expect(output).toContain(greeter.key);
    expect(output).toMatch(/progress: \d+ characters/);
    expect(output).toContain('answer: Hello there.');
    expect(output).toContain('follow-up: Goodbye now.');
  });

  it('returns a failed run as a tool error with its failure and the sessionId', async () => {
    const bot = await agent('Failing');
    const client = await connect();
    f.fakes.vendor_a.fail({ status: 400, message: 'no such thing' });
    const result = (await client.callTool({ name: bot.key, arguments: { message: 'Fail, please.' } })) as CallToolResult;
    expect(result.isError).toBe(true);
    const content = result.structuredContent as { sessionId: string; runId: string; state: string; failure: { errorCode: string } };
    expect(content).toMatchObject({ state: 'failed', sessionId: expect.stringMatching(UUID), failure: { errorCode: expect.any(String) } });
    expect(textOf(result)).toContain(content.failure.errorCode);
    expect(textOf(result)).toContain(content.sessionId);
    expect((await f.call('GET', `/runs/${content.runId}`)).body.state).toBe('failed');
  });

  it('cancels the run when the client cancels the call (notifications/cancelled), and the model is called no more', async () => {
    const bot = await agent('Slow');
    const client = await connect();
    let release = () => {};
    f.fakes.vendor_a.reply({ text: 'too late', heldUntil: new Promise<void>((resolve) => (release = resolve)) });
    const calls = f.fakes.vendor_a.requests.length;
    const controller = new AbortController();
    const call = client.callTool({ name: bot.key, arguments: { message: 'Take your time.' } }, undefined, { signal: controller.signal });
    try {
      await waitForModelCalls(calls + 1);
      controller.abort('the user gave up');
      expect(await rejection(call)).toBeInstanceOf(Error);
      const runId = await latestRunOf(bot.id);
      const run = await f.waitForRun(runId);
      expect(run.state).toBe('cancelled');
      expect(run.cancellationRequestedAt).not.toBeNull();
    } finally {
      release();
    }
    // The held answer is released: nothing calls the model again for the cancelled run.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(f.fakes.vendor_a.requests.length).toBe(calls + 1);
  });

  it('cancels the run when the client goes away in the middle of a call', async () => {
    const bot = await agent('Abandoned');
    const client = await connect();
    let release = () => {};
    f.fakes.vendor_a.reply({ text: 'nobody listens', heldUntil: new Promise<void>((resolve) => (release = resolve)) });
    const calls = f.fakes.vendor_a.requests.length;
    const call = client.callTool({ name: bot.key, arguments: { message: 'Take your time.' } });
    try {
      await waitForModelCalls(calls + 1);
      await client.close();
      await rejection(call);
      expect((await f.waitForRun(await latestRunOf(bot.id))).state).toBe('cancelled');
    } finally {
      release();
    }
  });

  it('leaves the run going when the caller may not cancel runs (no run:cancel): cancelling the call only stops listening', async () => {
    const bot = await agent('Unstoppable');
    const client = await connect((await f.t.createApiKey(['agent:read', 'session:write', 'run:create'], 'no cancel')).secret);
    let release = () => {};
    f.fakes.vendor_a.reply({ text: 'Finished anyway.', heldUntil: new Promise<void>((resolve) => (release = resolve)) });
    const calls = f.fakes.vendor_a.requests.length;
    const controller = new AbortController();
    const call = client.callTool({ name: bot.key, arguments: { message: 'Go on.' } }, undefined, { signal: controller.signal });
    try {
      await waitForModelCalls(calls + 1);
      controller.abort('the user gave up');
      await rejection(call);
    } finally {
      release();
    }
    const run = await f.waitForRun(await latestRunOf(bot.id));
    expect(run.state).toBe('completed');
    expect(run.cancellationRequestedAt).toBeNull();
  });

  it('answers a run waiting for an approval at once: a tool error naming the approval and the route that decides it', async () => {
    const bot = await agent('Refunds', { tools: [tool('refund_order', 'caller', 'always', 'Refunds an order.')] });
    const client = await connect();
    f.fakes.vendor_a.reply({ toolCalls: [{ name: 'refund_order', arguments: { orderId: ORDER } }] });
    const result = (await client.callTool({ name: bot.key, arguments: { message: `Refund ${ORDER}.` } })) as CallToolResult;
    expect(result.isError).toBe(true);
    const content = result.structuredContent as { sessionId: string; runId: string; state: string; waitingFor: { approvals: Array<{ id: string }> } };
    expect(content).toMatchObject({ state: 'waiting_for_approval', sessionId: expect.stringMatching(UUID), runId: expect.stringMatching(UUID) });
    const approvals = await f.call('GET', `/approvals?runId=${content.runId}`);
    const approval = approvals.body.data[0];
    expect(content.waitingFor.approvals).toEqual([
      { id: approval.id, toolName: 'refund_order', toolCallId: approval.toolCallId, expiresAt: approval.expiresAt },
    ]);
    expect(textOf(result)).toContain(approval.id);
    expect(textOf(result)).toContain(`POST /v1/projects/${f.projectId}/approvals/{approvalId}/decision`);
    expect(textOf(result)).toContain(content.sessionId);
    // The run still waits: the call answered without holding the caller.
    expect((await f.call('GET', `/runs/${content.runId}`)).body.state).toBe('waiting_for_approval');
    expect((await f.call('POST', `/runs/${content.runId}/cancel`)).status).toBe(202);
  });

  it("answers a run waiting for a caller's tool result at once, naming the tool call and the routes that answer it", async () => {
    const bot = await agent('Lookups', { tools: [tool('lookup_order', 'caller', 'never', 'Looks up an order.')] });
    const client = await connect();
    f.fakes.vendor_a.reply({ toolCalls: [{ name: 'lookup_order', arguments: { orderId: ORDER } }] });
    const result = (await client.callTool({ name: bot.key, arguments: { message: `Look up ${ORDER}.` } })) as CallToolResult;
    expect(result.isError).toBe(true);
    const content = result.structuredContent as { runId: string; state: string; waitingFor: { toolCalls: Array<{ id: string; toolName: string }> } };
    expect(content.state).toBe('waiting_for_tool');
    expect(content.waitingFor.toolCalls).toEqual([{ id: expect.stringMatching(UUID), toolName: 'lookup_order' }]);
    expect(textOf(result)).toContain(content.waitingFor.toolCalls[0]!.id);
    expect(textOf(result)).toContain(`/v1/projects/${f.projectId}/tool-calls/{toolCallId}/result`);
    expect((await f.call('POST', `/runs/${content.runId}/cancel`)).status).toBe(202);
  });

  it('refuses bad input with a clear error, never a 500: an unknown tool, no message, a conversation unknown or of another agent', async () => {
    const one = await agent('One');
    const other = await agent('Other');
    const client = await connect();

    const unknown = await rejection(client.callTool({ name: 'no-such-agent', arguments: { message: 'Hi' } }));
    expect(unknown.code).toBe(-32602);
    expect(unknown.message).toContain('Unknown tool "no-such-agent"');

    const noMessage = (await client.callTool({ name: one.key, arguments: {} })) as CallToolResult;
    expect(noMessage).toMatchObject({ isError: true });
    expect(textOf(noMessage)).toBe('The "message" argument is required');
    const notText = (await client.callTool({ name: one.key, arguments: { message: 42 } })) as CallToolResult;
    expect(textOf(notText)).toBe('message must be a string');

    const notAnId = (await client.callTool({ name: one.key, arguments: { message: 'Hi', sessionId: 'yesterday' } })) as CallToolResult;
    expect(notAnId.isError).toBe(true);
    expect(textOf(notAnId)).toContain('sessionId must be the sessionId of an earlier answer');
    const unknownSession = (await client.callTool({ name: one.key, arguments: { message: 'Hi', sessionId: randomUUID() } })) as CallToolResult;
    expect(unknownSession.isError).toBe(true);
    expect(textOf(unknownSession)).toContain('No session with that id');

    const answered = (await client.callTool({ name: other.key, arguments: { message: 'Hello other.' } })) as CallToolResult;
    const { sessionId } = answered.structuredContent as { sessionId: string };
    const foreignSession = (await client.callTool({ name: one.key, arguments: { message: 'Hi', sessionId } })) as CallToolResult;
    expect(foreignSession.isError).toBe(true);
    expect(textOf(foreignSession)).toContain('belongs to another agent');
    expect(f.t.logLines.filter((line) => line.includes('"request failed"'))).toEqual([]);
  });
});

describe('access', () => {
  it('needs agent:read to list and session:write with run:create to call, naming the missing scopes', async () => {
    const bot = await agent('Guarded');
    const reader = await connect((await f.t.createApiKey(['agent:read'], 'reader')).secret);
    expect((await reader.listTools()).tools.map((entry) => entry.name)).toContain(bot.key);
    const refused = await rejection(reader.callTool({ name: bot.key, arguments: { message: 'Hi' } }));
    expect(refused.code).toBe(-32003);
    expect(refused.message).toContain('session:write, run:create');

    const caller = await connect((await f.t.createApiKey(['session:write', 'run:create'], 'caller')).secret);
    const unlisted = await rejection(caller.listTools());
    expect(unlisted.code).toBe(-32003);
    expect(unlisted.message).toContain('agent:read');
    f.fakes.vendor_a.reply({ text: 'Hello, caller.' });
    expect(textOf((await caller.callTool({ name: bot.key, arguments: { message: 'Hi' } })) as CallToolResult)).toBe('Hello, caller.');
  });

  it('refuses a missing or unknown key with 401 and a JSON-RPC error body', async () => {
    const initialize = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const missing = await fetch(endpoint(), { method: 'POST', headers, body: initialize });
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe('Bearer');
    expect(await missing.json()).toEqual({
      jsonrpc: '2.0',
      error: { code: -32001, message: expect.stringContaining('Authorization: Bearer'), data: { code: 'unauthenticated', requestId: expect.any(String) } },
      id: null,
    });
    const unknown = await fetch(endpoint(), { method: 'POST', headers: { ...headers, authorization: 'Bearer svc_not-a-key' }, body: initialize });
    expect(unknown.status).toBe(401);
    expect(((await unknown.json()) as RpcErrorBody).error.code).toBe(-32001);
    // The SDK's error carries the HTTP status as its code.
    expect((await rejection(connect('svc_not-a-key'))).code).toBe(401);
  });

  it("refuses another organization's key on this project (403), and shows it only its own project's agents", async () => {
    const ours = await agent('Ours');
    const foreign = await createForeignOrganization(f.t);
    expect((await rejection(connect(foreign.apiKey))).code).toBe(403);
    const raw = await fetch(endpoint(), {
      method: 'POST',
      headers: { authorization: `Bearer ${foreign.apiKey}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(raw.status).toBe(403);
    expect(((await raw.json()) as RpcErrorBody).error).toMatchObject({ code: -32003, data: { code: 'forbidden' } });
    // Its own project is served, with none of ours.
    const own = await connect(foreign.apiKey, foreign.projectId);
    expect((await own.listTools()).tools.map((entry) => entry.name)).not.toContain(ours.key);
    expect(await rejection(own.callTool({ name: ours.key, arguments: { message: 'Hi' } }))).toMatchObject({ code: -32602 });
    // Our key on their project is refused too.
    expect((await rejection(connect(f.apiKey, foreign.projectId))).code).toBe(403);
  });

  it('answers 404 for a path that is no project, and 405 for GET and DELETE (no session to stream or end)', async () => {
    const auth = { authorization: `Bearer ${f.apiKey}` };
    expect((await fetch(`${served.baseUrl}/mcp/not-a-project`, { method: 'POST', headers: auth })).status).toBe(404);
    expect((await fetch(`${served.baseUrl}/mcp/${f.projectId}/extra`, { method: 'POST', headers: auth })).status).toBe(404);
    // `/mcp` itself is not the door's: it is the console's MCP screen.
    const screen = await fetch(`${served.baseUrl}/mcp`);
    expect(screen.status).toBe(200);
    expect(screen.headers.get('content-type')).toContain('text/html');
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(endpoint(), { method, headers: { ...auth, accept: 'text/event-stream' } });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('POST');
    }
  });

  it("takes one of the process's stream places per call while it follows its run: over the bound, the call is refused before any run", async () => {
    const bot = await agent('Placeholder');
    const deps = f.t.deps;
    const bounded = createApp({ ...deps, eventStreamPlaces: createEventStreamPlaces({ eventStreamsPerPrincipal: 1, eventStreamsPerProject: null }) });
    const boundedServer = await serveApp(bounded.fetch);
    const client = new Client({ name: 'bounded', version: '1.0.0' });
    clients.push(client);
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${boundedServer.baseUrl}/mcp/${f.projectId}`), {
        requestInit: { headers: { Authorization: `Bearer ${f.apiKey}` } },
      }),
    );
    let release = () => {};
    f.fakes.vendor_a.reply({ text: 'First.', heldUntil: new Promise<void>((resolve) => (release = resolve)) }).reply({ text: 'Third.' });
    const calls = f.fakes.vendor_a.requests.length;
    try {
      const first = client.callTool({ name: bot.key, arguments: { message: 'One.' } });
      await waitForModelCalls(calls + 1);
      const refused = await rejection(client.callTool({ name: bot.key, arguments: { message: 'Two.' } }));
      expect(String(refused)).toMatch(/stream/i);
      expect(f.fakes.vendor_a.requests.length).toBe(calls + 1);
      release();
      expect(textOf((await first) as CallToolResult)).toBe('First.');
      // The place is back once the call has ended.
      expect(textOf((await client.callTool({ name: bot.key, arguments: { message: 'Three.' } })) as CallToolResult)).toBe('Third.');
    } finally {
      release();
      await boundedServer.close();
    }
  });

  it("takes each request from the core's rate limits: over them, a 429 with Retry-After", async () => {
    const deps = f.t.deps;
    const limits = { ...deps.settings.limits, apiKeyRequests: { perSecond: 0.001, burst: 1 } };
    const limited = createApp({ ...deps, settings: { ...deps.settings, limits } });
    const apiKey = (await f.t.createApiKey(['agent:read'], 'limited')).secret;
    const list = () =>
      limited.request(`/mcp/${f.projectId}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
    const first = await list();
    expect(first.status).toBe(200);
    await first.body?.cancel();
    const second = await list();
    expect(second.status).toBe(429);
    expect(Number(second.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await second.json()) as RpcErrorBody).error).toMatchObject({ code: -32029, data: { code: 'rate_limited' } });
  });

  it("is switched off for one project by its agentProtocols: that project's endpoint is a 404, then back", async () => {
    const project = (agentProtocols: Record<string, boolean>) =>
      f.t.request('PATCH', `/v1/projects/${f.projectId}`, { apiKey: f.apiKey, body: { agentProtocols } });
    expect((await project({ mcp: false })).status).toBe(200);
    try {
      const refused = await fetch(endpoint(), {
        method: 'POST',
        headers: { authorization: `Bearer ${f.apiKey}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(refused.status).toBe(404);
      expect(await refused.text()).toContain('does not serve its agents over MCP');
    } finally {
      expect((await project({ mcp: true })).status).toBe(200);
    }
    expect((await (await connect()).listTools()).tools.length).toBeGreaterThan(0);
  });

  it('is not there when SVC_MCP_SERVER is off: every path is a 404', async () => {
    const deps = f.t.deps;
    const off = createApp({ ...deps, settings: { ...deps.settings, doors: { ...deps.settings.doors, mcp: false } } });
    const response = await off.request(`/mcp/${f.projectId}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${f.apiKey}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('not_found');
    // The rest of the service is unchanged.
    expect((await off.request(`/v1/projects/${f.projectId}/agents`, { headers: { authorization: `Bearer ${f.apiKey}` } })).status).toBe(200);
  });
});
