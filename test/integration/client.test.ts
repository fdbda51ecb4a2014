import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import {
  ApiError,
  createClient,
  LiveText,
  RunWaitTimeoutError,
  runToolCall,
  workPendingToolCalls,
  type FeedFrame,
  type ModelPrices,
  type PublicAgent,
  type PublicRun,
  type PublicSchedule,
  type ScheduleFiring,
  type SessionBudget,
  type SessionFrame,
  type UsageGroup,
} from '../../client/src/index.ts';
import { recordToolCalls } from '../../services/runtime/tool-calls/index.ts';
import { TOOL_LEASE_MS } from '../../domain/tool-calls/states.ts';
import { manualClock, TEST_ORIGIN } from '../support/app.ts';
import { ORDER, startToolCallApp, tool } from '../support/tool-call-app.ts';
import { appendProductEvents } from '../../services/kernel/events/index.ts';
import { systemContext } from '../../services/kernel/service-context.ts';
import { serveApp, type ServedApp } from '../support/http-server.ts';
import { startRunApp } from '../support/run-app.ts';

/**
 * The typed client (client/) against the real service over HTTP (issue 17 point 2): an
 * idempotent retry after a dropped connection creates one resource, the feed consumer survives a
 * server-side cut mid-stream, `waitForRunSettled` returns the settled run and times out with
 * `run_wait_timeout` without cancelling the run.
 */
let f: Awaited<ReturnType<typeof startRunApp>>;
let served: ServedApp;
let baseUrl: string;

beforeAll(async () => {
  f = await startRunApp({ env: { SVC_RATE_LIMIT_API_KEY_PER_SECOND: '0', SVC_RATE_LIMIT_PROJECT_PER_SECOND: '0' } });
  served = await serveApp(f.t.app.fetch);
  baseUrl = served.baseUrl;
}, 120_000);
afterAll(async () => {
  await served?.close();
  await f?.close();
});

const config = { systemPrompt: 'You are a careful assistant for the support team.', modelPreset: 'fast', limits: { maxTurns: 4 } };

describe('the typed client', () => {
  it('retries a mutation whose answer was lost with the same Idempotency-Key: one resource', async () => {
    let dropped = 0;
    const keys: string[] = [];
    // The connection drops after the service answered: the answer never reaches the caller.
    const lossyFetch: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (init?.method === 'POST') keys.push(new Headers(init.headers).get('idempotency-key')!);
      if (init?.method === 'POST' && dropped === 0) {
        dropped += 1;
        await response.body?.cancel();
        throw new TypeError('fetch failed: socket hang up');
      }
      return response;
    };
    const client = createClient({ baseUrl, apiKey: f.apiKey, fetch: lossyFetch, retryDelayMs: 10 });
    const name = `Retried ${crypto.randomUUID().slice(0, 8)}`;
    const agent = await client.request<{ id: string; name: string }>('POST', '/agents', { body: { name, initialConfig: config } });
    expect(agent.name).toBe(name);
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
    const named: string[] = [];
    for await (const item of client.list('/agents', { limit: 100 })) if (item.name === name) named.push(item.id);
    expect(named).toEqual([agent.id]);
  });

  it('types calls by the OpenAPI document: paths, parameters, bodies and answers', async () => {
    const client = createClient({ baseUrl, apiKey: f.apiKey });
    const agent = await client.call('post', '/v1/projects/{projectId}/agents', { body: { name: 'Typed', initialConfig: config } });
    expectTypeOf(agent.versions[0]!.version).toEqualTypeOf<number>();
    expect(agent.versions[0]!.version).toBe(1);
    f.fakes.vendor_a.reply({ text: 'Typed reply.' });
    const session = await client.call('post', '/v1/projects/{projectId}/sessions', { body: { agentId: agent.id, initialMessage: 'Hello' } });
    // `run` is null only for an idle session (created without a message or files).
    if (!session.run) throw new Error('a session created with a message has its first run');
    expectTypeOf(session.run.state).toEqualTypeOf<
      'queued' | 'running' | 'waiting_for_tool' | 'waiting_for_approval' | 'retry_scheduled' | 'completed' | 'failed' | 'cancelled' | 'timed_out'
    >();
    const run = await client.call('get', '/v1/projects/{projectId}/runs/{runId}', { path: { runId: session.run.id } });
    expect(run).toMatchObject({ id: session.run.id, sessionId: session.id });
    const page = await client.call('get', '/v1/projects/{projectId}/sessions', { query: { limit: '5' } });
    expectTypeOf(page.pageInfo.nextCursor).toEqualTypeOf<string | null>();
    expect(page.data.length).toBeGreaterThan(0);
    // List iterators take the item type of the route's page.
    for await (const listed of client.list('/agents', { limit: 1 })) {
      expectTypeOf(listed).toEqualTypeOf<PublicAgent>();
      expect(listed.id).toMatch(/^[0-9a-f-]{36}$/);
      break;
    }
    // What the document does not allow does not compile (checked by test/typecheck.test.ts).
    // @ts-expect-error: `name` is required by the agent creation body
    await client.call('post', '/v1/projects/{projectId}/agents', { body: { initialConfig: config } }).catch(() => undefined);
    // @ts-expect-error: no such path in the document
    await client.call('get', '/v1/projects/{projectId}/nothing', {}).catch(() => undefined);
    await f.waitForRun(session.run.id);
  });

  it('signs in with a browser session cookie: reads, and mutations with the allowed Origin only', async () => {
    const { cookie } = await f.t.login();
    const browser = createClient({ baseUrl, cookie, origin: TEST_ORIGIN });
    const context = await browser.call('get', '/v1/context', {});
    expect(context.principal.kind).toBe('human');
    const agent = await browser.call('post', '/v1/projects/{projectId}/agents', { body: { name: 'From a browser session', initialConfig: config } });
    expect(agent.version).toBe(1);
    // Without the Origin the cookie session may read but not change anything (spec 3 "Browser sessions" 2).
    const noOrigin = createClient({ baseUrl, cookie, projectId: f.projectId });
    expect((await noOrigin.call('get', '/v1/projects/{projectId}/agents/{agentId}', { path: { agentId: agent.id } })).id).toBe(agent.id);
    const refused = await noOrigin
      .call('post', '/v1/projects/{projectId}/agents', { body: { name: 'Refused', initialConfig: config } })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({ status: 403, code: 'forbidden', envelopeMessage: 'Request origin is not allowed' });
  });

  it('throws typed errors with the code and request id, and does not retry a refusal', async () => {
    let calls = 0;
    const client = createClient({
      baseUrl,
      apiKey: f.apiKey,
      fetch: (input, init) => {
        calls += 1;
        return fetch(input, init);
      },
    });
    const error = await client.request('POST', '/agents', { body: { name: '' } }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 400, code: 'bad_request' });
    expect((error as ApiError).requestId).toMatch(/.{8,}/);
    expect((error as ApiError).message).toContain((error as ApiError).requestId!);
    expect(calls).toBe(2); // the context lookup for the project id, then the refused call
  });

  it('follows the event feed across a server-side cut without gaps or repeats', async () => {
    const client = createClient({ baseUrl, apiKey: f.apiKey, projectId: f.projectId });
    const { context } = await f.t.login();
    const ctx = systemContext({ db: f.t.database.db, logger: f.t.deps.logger, clock: f.t.deps.clock });
    const append = (count: number, tag: string) =>
      appendProductEvents(ctx, {
        organizationId: context.organization.id,
        projectId: f.projectId,
        events: Array.from({ length: count }, (_, index) => ({
          aggregateType: 'test',
          aggregateId: crypto.randomUUID(),
          kind: 'test.followed',
          publicPayload: { tag, index },
        })),
      });
    const controller = new AbortController();
    const frames: FeedFrame[] = [];
    let connections = 0;
    const reading = (async () => {
      for await (const frame of client.events({ from: 'now', signal: controller.signal, reconnectDelayMs: 50, onConnect: () => void (connections += 1) })) {
        frames.push(frame);
        if (frames.length === 100) controller.abort();
      }
    })().catch((error: unknown) => {
      if (!controller.signal.aborted) throw error;
    });
    while (connections === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    await append(50, 'before');
    while (frames.length < 50) await new Promise((resolve) => setTimeout(resolve, 20));
    served.cutConnections();
    await append(50, 'after');
    await Promise.race([reading, new Promise((_, reject) => setTimeout(() => reject(new Error(`only ${frames.length} frames`)), 20_000))]);
    expect(connections).toBeGreaterThanOrEqual(2);
    const positions = frames.map((frame) => BigInt(frame.event.projectPosition));
    expect(positions.every((position, index) => index === 0 || position === positions[index - 1]! + 1n)).toBe(true);
    expect(frames.map((frame) => frame.event.publicPayload.tag)).toEqual([...Array(50).fill('before'), ...Array(50).fill('after')]);
  });

  it('follows a session live across a server-side cut: every event once, and the exact text assembled from the deltas', async () => {
    const client = createClient({ baseUrl, apiKey: f.apiKey, projectId: f.projectId });
    const answer = 'A reply written slowly enough to be cut in the middle of it, then finished.';
    f.fakes.vendor_a.reply({ text: answer, chunkSize: 3, chunkDelayMs: 40 });
    const agent = await client.request<{ id: string }>('POST', '/agents', { body: { name: 'Live', initialConfig: config } });
    const session = await client.request<{ id: string; latestRunId: string }>('POST', '/sessions', { body: { agentId: agent.id, initialMessage: 'Write.' } });
    const controller = new AbortController();
    const live = new LiveText();
    const frames: SessionFrame[] = [];
    let connections = 0;
    let cut = false;
    const reading = (async () => {
      for await (const frame of client.sessionEvents(session.id, {
        deltas: true,
        signal: controller.signal,
        reconnectDelayMs: 50,
        onConnect: () => void (connections += 1),
      })) {
        frames.push(frame);
        live.apply(frame);
        if (!cut && frame.type === 'message.delta' && frame.delta.offset > 10) {
          cut = true;
          served.cutConnections();
        }
        if (frame.type === 'event' && frame.kind === 'message.created' && frame.event.publicPayload.role === 'assistant') controller.abort();
      }
    })().catch((error: unknown) => {
      if (!controller.signal.aborted) throw error;
    });
    await Promise.race([reading, new Promise((_, reject) => setTimeout(() => reject(new Error(`only ${frames.length} frames`)), 30_000))]);
    expect(connections).toBeGreaterThanOrEqual(2);
    expect(live.textOf(session.latestRunId, 1)).toBe(answer);
    const ids = frames.flatMap((frame) => (frame.type === 'event' ? [frame.id] : []));
    expect(new Set(ids).size).toBe(ids.length);
    const positions = frames.flatMap((frame) => (frame.type === 'event' ? [BigInt(frame.event.projectPosition)] : []));
    expect(positions.every((position, index) => index === 0 || position > positions[index - 1]!)).toBe(true);
  });

  it('waitForRunSettled returns the settled run, following the feed', async () => {
    const client = createClient({ baseUrl, apiKey: f.apiKey });
    f.fakes.vendor_a.reply({ text: 'Slowly, done.', delayMs: 1_000 });
    const agent = await client.request<{ id: string }>('POST', '/agents', { body: { name: 'Slow', initialConfig: config } });
    const session = await client.request<{ latestRunId: string }>('POST', '/sessions', { body: { agentId: agent.id, initialMessage: 'Take your time.' } });
    let gets = 0;
    const counting = createClient({
      baseUrl,
      apiKey: f.apiKey,
      projectId: f.projectId,
      fetch: (input, init) => {
        if (String(input).includes('/runs/')) gets += 1;
        return fetch(input, init);
      },
    });
    const run = await counting.waitForRunSettled(session.latestRunId, { timeoutMs: 30_000 });
    expect(run).toMatchObject({ id: session.latestRunId, state: 'completed' });
    // Woken by the run's events, not a polling loop: a handful of reads for a 1 s run.
    expect(gets).toBeLessThan(15);
  });

  it('waitForRunSettled throws run_wait_timeout at its deadline and leaves the run going', async () => {
    const client = createClient({ baseUrl, apiKey: f.apiKey, projectId: f.projectId });
    const lookup = tool('lookup_order', 'caller', 'never', 'Looks up an order.');
    f.fakes.vendor_a.reply({ toolCalls: [{ name: 'lookup_order', arguments: { orderId: ORDER } }] }).reply({ text: 'Found it.' });
    const agent = await client.request<{ id: string }>('POST', '/agents', {
      body: { name: 'Waits for a caller', initialConfig: { ...config, tools: [lookup] } },
    });
    const session = await client.request<{ latestRunId: string }>('POST', '/sessions', { body: { agentId: agent.id, initialMessage: 'Look up A1.' } });
    await f.waitForRun(session.latestRunId, (run) => run.state === 'waiting_for_tool');
    const began = Date.now();
    const error = await client.waitForRunSettled(session.latestRunId, { timeoutMs: 800 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RunWaitTimeoutError);
    expect(error).toMatchObject({ code: 'run_wait_timeout', runId: session.latestRunId });
    // The deadline is the subject: the run waits for a caller nobody plays, so without it the wait
    // never ends; the bound only says it ended near its 800 ms, not when.
    expect(Date.now() - began).toBeLessThan(10_000);
    const run = await client.getRun(session.latestRunId);
    expect(run).toMatchObject({ state: 'waiting_for_tool', cancellationRequestedAt: null });
  });

  it('types conversation control: an idle session, a turn queued while busy (told apart by `queued`), interrupt, withdraw, fork', async () => {
    const client = createClient({ baseUrl, apiKey: f.apiKey, projectId: f.projectId });
    const lookup = tool('lookup_order', 'caller', 'never', 'Looks up an order.');
    const agent = await client.call('post', '/v1/projects/{projectId}/agents', {
      body: { name: 'Conversation control', initialConfig: { ...config, tools: [lookup] } },
    });
    const session = await client.call('post', '/v1/projects/{projectId}/sessions', { body: { agentId: agent.id } });
    expect(session).toMatchObject({ status: 'idle', latestRunId: null, run: null });
    const turn = (message: string, ifBusy?: 'enqueue' | 'interrupt') =>
      client.call('post', '/v1/projects/{projectId}/sessions/{sessionId}/runs', {
        path: { sessionId: session.id },
        body: { message, ...(ifBusy ? { ifBusy } : {}) },
      });

    f.fakes.vendor_a.reset(); // the run left waiting above did not use its second reply
    f.fakes.vendor_a.reply({ toolCalls: [{ name: 'lookup_order', arguments: { orderId: ORDER } }] });
    const first = await turn('Look up A1.');
    if ('queued' in first) throw new Error('an idle session is not busy: its first turn is a run');
    expectTypeOf(first.state).toEqualTypeOf<PublicRun['state']>();
    await f.waitForRun(first.id, (run) => run.state === 'waiting_for_tool');
    const queued = await turn('And B2?', 'enqueue');
    if (!('queued' in queued)) throw new Error('a busy session queues the turn');
    expectTypeOf(queued.pendingTurn.ifBusy).toEqualTypeOf<'enqueue' | 'interrupt'>();
    expect(queued.pendingTurn).toMatchObject({ sessionId: session.id, position: 1, ifBusy: 'enqueue', message: 'And B2?', attachments: [] });
    expect((await client.call('get', '/v1/projects/{projectId}/sessions/{sessionId}', { path: { sessionId: session.id } })).pendingTurns).toEqual([
      queued.pendingTurn,
    ]);

    // Interrupt: the active run is cancelled, the queued turn dropped, and this one runs next.
    f.fakes.vendor_a.reply({ text: 'Interrupted, then answered.' });
    const interrupting = await turn('Never mind; hello.', 'interrupt');
    expect(interrupting).toMatchObject({ queued: true, pendingTurn: { position: 1, ifBusy: 'interrupt' } });
    expect((await client.waitForRunSettled(first.id, { timeoutMs: 30_000 })).state).toBe('cancelled');
    const withdrawn = await client.call('delete', '/v1/projects/{projectId}/sessions/{sessionId}/pending-turns/{turnId}', {
      path: { sessionId: session.id, turnId: queued.pendingTurn.id },
    });
    expect(withdrawn).toEqual({ id: queued.pendingTurn.id, withdrawn: true }); // dropped by the interrupt already: the same answer
    const detail = await client.call('get', '/v1/projects/{projectId}/sessions/{sessionId}', { path: { sessionId: session.id } });
    const next = await client.waitForRunSettled(detail.latestRunId!, { timeoutMs: 30_000 });
    expect(next).toMatchObject({ state: 'completed', inputPublic: { message: 'Never mind; hello.' } });

    const fork = await client.call('post', '/v1/projects/{projectId}/sessions/{sessionId}/fork', {
      path: { sessionId: session.id },
      body: { fromRunId: next.id, title: 'Forked' },
    });
    expectTypeOf(fork.workspace).toEqualTypeOf<'copied' | 'empty'>();
    expect(fork).toMatchObject({
      title: 'Forked',
      status: 'idle',
      run: null,
      forkedFrom: { sessionId: session.id, runId: next.id },
      workspace: 'empty',
      agentVersionId: session.agentVersionId,
    });
  });

  it('types money and schedules: preset prices, run cost, session and project budgets, the usage ledger, every schedule route', async () => {
    const client = createClient({ baseUrl, apiKey: f.apiKey, projectId: f.projectId });
    const fast = (await client.call('get', '/v1/projects/{projectId}/model-presets', { query: { limit: '100' } })).data.find(
      (preset) => preset.key === 'fast',
    )!;
    const priced = await client.call('patch', '/v1/projects/{projectId}/model-presets/{presetId}', {
      path: { presetId: fast.id },
      body: { prices: { input: 2, output: 10 } },
    });
    expectTypeOf(priced.prices).toEqualTypeOf<ModelPrices | null>();
    expect(priced.prices).toEqual({ input: 2, output: 10, cacheRead: null, cacheWrite: null, source: 'operator' });

    const agent = await client.call('post', '/v1/projects/{projectId}/agents', { body: { name: 'Priced', initialConfig: config } });
    f.fakes.vendor_a.reply({ text: 'Priced answer.', usage: { inputTokens: 1000, outputTokens: 100 } });
    const session = await client.call('post', '/v1/projects/{projectId}/sessions', {
      body: { agentId: agent.id, initialMessage: 'Hello', budget: { maxTokens: 100_000 } },
    });
    expect(session.budget).toEqual({ maxCost: null, maxTokens: 100_000 });
    const run = await client.waitForRunSettled(session.run!.id, { timeoutMs: 30_000 });
    expectTypeOf(run.cost).toEqualTypeOf<number>();
    expect(run).toMatchObject({ state: 'completed', inputTokens: 1000, outputTokens: 100, cost: 0.003 }); // 1,000 × 2 + 100 × 10 per million
    const rebudgeted = await client.call('patch', '/v1/projects/{projectId}/sessions/{sessionId}', {
      path: { sessionId: session.id },
      body: { budget: { maxCost: 1 } },
    });
    expectTypeOf(rebudgeted.budget).toEqualTypeOf<SessionBudget | null>();
    expect(rebudgeted).toMatchObject({ budget: { maxCost: 1, maxTokens: null }, cost: 0.003 });
    const project = await client.call('patch', '/v1/projects/{projectId}', { body: { budget: { maxMonthlyTokens: 1_000_000 } } });
    expect(project.budget).toEqual({ maxMonthlyCost: null, maxMonthlyTokens: 1_000_000 });
    expect((await client.call('patch', '/v1/projects/{projectId}', { body: { budget: null } })).budget).toBeNull();

    const ledger = await client.call('get', '/v1/projects/{projectId}/usage', { query: { groupBy: 'agent' } });
    expectTypeOf(ledger.groups).toEqualTypeOf<UsageGroup[]>();
    expect(ledger.groups.find((group) => group.key === agent.id)).toMatchObject({ runs: 1, invocations: 1, inputTokens: 1000, outputTokens: 100, cost: 0.003 });

    const schedule = await client.call('post', '/v1/projects/{projectId}/schedules', {
      body: { agentId: agent.id, intervalSeconds: 3600, message: 'Hourly.', paused: true },
    });
    expectTypeOf(schedule.recentFirings).toEqualTypeOf<ScheduleFiring[]>();
    expect(schedule).toMatchObject({ agentId: agent.id, intervalSeconds: 3600, paused: true, nextFirings: [] });
    const path = { scheduleId: schedule.id };
    expect((await client.call('post', '/v1/projects/{projectId}/schedules/{scheduleId}/unpause', { path })).paused).toBe(false);
    expect(
      (await client.call('patch', '/v1/projects/{projectId}/schedules/{scheduleId}', { path, body: { cron: '0 9 * * *', timeZone: 'Europe/Paris' } })).cron,
    ).toBe('0 9 * * *');
    expect((await client.call('post', '/v1/projects/{projectId}/schedules/{scheduleId}/pause', { path })).paused).toBe(true);
    f.fakes.vendor_a.reply({ text: 'Run now.' });
    expect(await client.call('post', '/v1/projects/{projectId}/schedules/{scheduleId}/trigger', { path })).toEqual({ id: schedule.id, triggered: true });
    for await (const listed of client.list('/schedules')) expectTypeOf(listed).toEqualTypeOf<PublicSchedule>();
    const firings = await client.call('get', '/v1/projects/{projectId}/schedules/{scheduleId}/firings', { path });
    expectTypeOf(firings.data).toEqualTypeOf<ScheduleFiring[]>();
    expect(await client.call('delete', '/v1/projects/{projectId}/schedules/{scheduleId}', { path })).toEqual({ id: schedule.id, deleted: true });
    expect((await client.call('get', '/v1/projects/{projectId}/schedules/{scheduleId}', { path }).catch((error: unknown) => error)) as ApiError).toMatchObject({
      status: 404,
      code: 'not_found',
    });
  });
});

describe('the caller-tool worker helper', () => {
  // No run engine here (runs stay queued; calls are recorded as the workflow would) and a
  // manual clock, so a lease can outlive its 5-minute TTL in a second of real time.
  const clock = manualClock();
  let app: Awaited<ReturnType<typeof startToolCallApp>>;
  let toolServer: ServedApp;
  let toolBaseUrl: string;

  beforeAll(async () => {
    app = await startToolCallApp([tool('lookup_order', 'caller', 'never', 'Looks up an order.')], clock);
    toolServer = await serveApp(app.t.app.fetch);
    toolBaseUrl = toolServer.baseUrl;
  }, 60_000);
  afterAll(async () => {
    await toolServer?.close();
    await app?.t.close();
    await app?.fakes.close();
  });

  async function pendingCall(): Promise<{ toolCallId: string; runId: string }> {
    const { runId } = await app.newRun();
    const recorded = await recordToolCalls(app.sys(), {
      runId,
      turnId: `turn-${crypto.randomUUID()}`,
      calls: [
        {
          providerCallId: `call_${crypto.randomUUID()}`,
          name: 'lookup_order',
          arguments: { orderId: ORDER },
          argumentsText: JSON.stringify({ orderId: ORDER }),
        },
      ],
    });
    return { toolCallId: recorded.calls[0]!.toolCallId, runId };
  }
  const statusOf = async (client: ReturnType<typeof createClient>, call: { toolCallId: string; runId: string }) =>
    (await client.request<{ data: Array<{ id: string; status: string }> }>('GET', '/tool-calls', { query: { runId: call.runId } })).data.find(
      (listed) => listed.id === call.toolCallId,
    )?.status;

  it('renews the lease while a handler outlives the TTL, then submits once with the fence', async () => {
    const pending = await pendingCall();
    const { toolCallId } = pending;
    const requests: string[] = [];
    const client = createClient({
      baseUrl: toolBaseUrl,
      apiKey: app.admin,
      projectId: app.projectId,
      fetch: (input, init) => {
        requests.push(`${init?.method} ${String(input).split('/tool-calls/')[1] ?? String(input)}`);
        return fetch(input, init);
      },
    });
    const result = await runToolCall(
      client,
      toolCallId,
      async (call) => {
        expect(call.arguments).toEqual({ orderId: ORDER });
        // Twelve minutes of service time pass while the tool runs (more than two leases).
        for (let i = 0; i < 6; i++) {
          clock.advance(2 * 60_000);
          await new Promise((resolve) => setTimeout(resolve, 150));
        }
        return { total: 42 };
      },
      { renewEveryMs: 50 },
    );
    expect(12 * 60_000).toBeGreaterThan(2 * TOOL_LEASE_MS);
    expect(result).toEqual({ outcome: 'submitted' });
    expect(await statusOf(client, pending)).toBe('succeeded');
    expect(requests.filter((request) => request.endsWith('/renew')).length).toBeGreaterThanOrEqual(6);
    expect(requests.filter((request) => request.endsWith('/result'))).toHaveLength(1);
    expect(requests.filter((request) => request.endsWith('/release'))).toHaveLength(0);
  });

  it('releases the claim when the handler fails, so another worker can take the call', async () => {
    const pending = await pendingCall();
    const client = createClient({ baseUrl: toolBaseUrl, apiKey: app.admin, projectId: app.projectId });
    await expect(runToolCall(client, pending.toolCallId, async () => Promise.reject(new Error('the order system is down')))).rejects.toThrow(
      'the order system is down',
    );
    expect(await statusOf(client, pending)).toBe('pending');
    // Another worker takes it over.
    expect(await runToolCall(client, pending.toolCallId, async () => ({ total: 7 }))).toEqual({ outcome: 'submitted' });
    expect(await statusOf(client, pending)).toBe('succeeded');
  });

  it('works the pending caller calls of the project by tool name', async () => {
    const first = (await pendingCall()).toolCallId;
    const second = (await pendingCall()).toolCallId;
    const client = createClient({ baseUrl: toolBaseUrl, apiKey: app.admin, projectId: app.projectId });
    const seen: string[] = [];
    const ran = await workPendingToolCalls(client, {
      lookup_order: async (call) => {
        seen.push(call.id);
        return { total: 1 };
      },
    });
    expect(seen).toEqual(expect.arrayContaining([first, second]));
    expect(ran).toBe(seen.length);
  });
});
