import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages, productEvents, toolCalls } from '../../db/schema/index.ts';
import type { ServiceContext } from '../../services/kernel/service-context.ts';
import { appendToolResultMessages, checkToolProgress } from '../../services/runtime/runs/index.ts';
import { cancelOpenToolCalls } from '../../services/runtime/tool-calls/index.ts';
import { completePlatformToolCall } from '../../services/runtime/tool-calls/index.ts';
import { expireOverdue } from '../../services/runtime/tool-calls/index.ts';
import { readToolProgress } from '../../services/runtime/tool-calls/index.ts';
import { recordToolCalls } from '../../services/runtime/tool-calls/index.ts';
import { errorOf } from '../fixtures/model-vendors/helpers.ts';
import type { FakeModelProviders } from '../fixtures/model-vendors/catalog-server.ts';
import { manualClock, type TestApp } from '../support/app.ts';
import { ORDER, startToolCallApp, tool } from '../support/tool-call-app.ts';

/** Caller tool, platform tool and approval-gated tools, as a published version pins them. */
const TOOLS = [
  tool('lookup_order', 'caller', 'never', 'Looks up an order.'),
  tool('compute_tax', 'platform', 'never', 'Computes tax.'),
  tool('refund_order', 'caller', 'always', 'Refunds an order.'),
];
const SECRET_MARKER = 'raw-value-never-stored';

let t: TestApp;
let fakes: FakeModelProviders;
let admin: string;
let p: (path: string) => string;
let sys: () => ServiceContext;
let newRun: () => Promise<{ runId: string; sessionId: string }>;
const clock = manualClock();

beforeAll(async () => {
  ({ t, fakes, admin, p, sys, newRun } = await startToolCallApp(TOOLS, clock));
});
afterAll(async () => {
  await t?.close();
  await fakes?.close();
});

let turn = 0;
const call = (name: string, args: unknown, id = `call_${(turn += 1)}`) => ({
  providerCallId: id,
  name,
  arguments: args,
  argumentsText: JSON.stringify(args ?? null),
});
const record = (runId: string, calls: ReturnType<typeof call>[], turnId = `turn-${(turn += 1)}`) => recordToolCalls(sys(), { runId, turnId, calls });
const rowOf = async (id: string) => (await t.database.db.select().from(toolCalls).where(eq(toolCalls.id, id)))[0]!;
const claim = (id: string, apiKey = admin) => t.request('POST', p(`/tool-calls/${id}/claim`), { apiKey, body: {} });
const submit = (id: string, fence: string, safeResult: unknown, options: { apiKey?: string; idempotencyKey?: string } = {}) =>
  t.request('POST', p(`/tool-calls/${id}/result`), {
    apiKey: options.apiKey ?? admin,
    body: { fence, safeResult },
    ...(options.idempotencyKey ? { idempotencyKey: options.idempotencyKey } : {}),
  });
const eventsOf = async (aggregateId: string) =>
  (await t.database.db.select().from(productEvents).where(eq(productEvents.aggregateId, aggregateId))).sort(
    (a, b) => a.aggregateSequence - b.aggregateSequence,
  );

describe('recordToolCalls', () => {
  it('checks each call against the pinned tools and is idempotent per provider call id', async () => {
    const { runId } = await newRun();
    const turnId = 'turn-record';
    const calls = [
      call('no_such_tool', { orderId: ORDER }),
      call('lookup_order', { orderId: ORDER }),
      call('lookup_order', 'not an object'),
      call('lookup_order', { orderId: ORDER, items: [{ sku: 'a' }, { note: SECRET_MARKER }] }),
      call('compute_tax', { orderId: 'not-a-uuid' }),
      call('compute_tax', { orderId: ORDER, [SECRET_MARKER]: true }),
      call('compute_tax', { orderId: ORDER }),
      call('refund_order', { orderId: ORDER }),
    ];
    const first = await recordToolCalls(sys(), { runId, turnId, calls });
    expect(first.calls.map((c) => c.status)).toEqual(['failed', 'pending', 'failed', 'failed', 'failed', 'failed', 'running', 'pending_approval']);
    const rows = await Promise.all(first.calls.map((c) => rowOf(c.toolCallId)));
    expect(rows[0]!.failure).toMatchObject({ code: 'tool_failed' });
    expect(rows[0]!.failure!.message).toContain('no tool named');
    expect(rows[2]!.failure).toMatchObject({ code: 'invalid_tool_arguments', path: 'arguments' });
    expect(rows[3]!.failure).toMatchObject({ code: 'invalid_tool_arguments', path: 'arguments.items[1].sku' });
    expect(rows[4]!.failure).toMatchObject({ code: 'invalid_tool_arguments', path: 'arguments.orderId' });
    expect(rows[5]!.failure).toMatchObject({ code: 'invalid_tool_arguments', path: `arguments["${SECRET_MARKER}"]` });
    // Refused arguments are not kept; valid ones are, as safeArguments.
    expect([0, 2, 3, 4, 5].map((i) => rows[i]!.safeArguments)).toEqual([null, null, null, null, null]);
    expect(first.calls[1]!.arguments).toEqual({ orderId: ORDER });
    expect(rows.map((row) => row.attempt)).toEqual([1, 1, 2, 3, 1, 2, 3, 1]);

    const approvalsListed = await (await t.request('GET', p(`/approvals?runId=${runId}`), { apiKey: admin })).json();
    expect(approvalsListed.data).toHaveLength(1);
    expect(approvalsListed.data[0]).toMatchObject({ toolCallId: first.calls[7]!.toolCallId, status: 'pending', toolName: 'refund_order' });
    expect(new Date(approvalsListed.data[0].expiresAt).getTime() - clock.now().getTime()).toBe(24 * 60 * 60 * 1000 + 7);

    const eventCount = (await t.database.db.select().from(productEvents)).length;
    const again = await recordToolCalls(sys(), { runId, turnId, calls });
    expect(again.calls.map((c) => c.toolCallId)).toEqual(first.calls.map((c) => c.toolCallId));
    expect((await t.database.db.select().from(productEvents)).length).toBe(eventCount);

    const created = await eventsOf(first.calls[1]!.toolCallId);
    expect(created.map((e) => e.kind)).toEqual(['tool_call.created']);
    expect(created[0]!.publicPayload).toMatchObject({
      toolCallId: first.calls[1]!.toolCallId,
      runId,
      toolName: 'lookup_order',
      owner: 'caller',
      status: 'pending',
    });
    const allEvents = JSON.stringify((await t.database.db.select().from(productEvents)).map((e) => e.publicPayload));
    expect(allEvents).not.toContain(SECRET_MARKER);
    expect(allEvents).not.toContain(ORDER);
  });

  it('refuses a fourth consecutive failure with tool_retry_exhausted; a success resets the count', async () => {
    const { runId } = await newRun();
    const bad = () => record(runId, [call('lookup_order', {})]);
    await bad();
    await bad();
    // A success resets the count.
    const good = await record(runId, [call('lookup_order', { orderId: ORDER })]);
    const claimed = await (await claim(good.calls[0]!.toolCallId)).json();
    expect((await submit(good.calls[0]!.toolCallId, claimed.fence, { version: 1, status: 'success', value: { total: 1 } })).status).toBe(202);
    await bad();
    await bad();
    expect((await record(runId, [call('lookup_order', { orderId: ORDER })])).calls[0]!.status).toBe('pending');
    await bad();
    const exhausted = await record(runId, [call('lookup_order', { orderId: ORDER })]);
    expect(exhausted.calls[0]!.status).toBe('failed');
    expect((await rowOf(exhausted.calls[0]!.toolCallId)).failure).toMatchObject({ code: 'tool_retry_exhausted' });
    // Other tools keep their own count.
    expect((await record(runId, [call('compute_tax', { orderId: ORDER })])).calls[0]!.status).toBe('running');
  });
});

describe('claim, renew, release and result', () => {
  it('fences every step; a stale fence is a 409; the result is validated and immutable', async () => {
    const { runId } = await newRun();
    const [pending] = (await record(runId, [call('lookup_order', { orderId: ORDER })])).calls;
    const id = pending!.toolCallId;

    const first = await claim(id);
    expect(first.status).toBe(200);
    const claimed = await first.json();
    expect(claimed).toMatchObject({
      id,
      runId,
      toolName: 'lookup_order',
      status: 'claimed',
      fence: expect.stringMatching(/^[1-9][0-9]*$/),
      arguments: { orderId: ORDER },
    });
    const fence: string = claimed.fence;
    const otherFence = fence === '1' ? '2' : '1';
    expect(new Date(claimed.leaseExpiresAt).getTime()).toBe(clock.now().getTime() + 5 * 60 * 1000);
    expect(t.runStarter.notifications.at(-1)).toEqual({ runId, signal: 'toolResultSubmitted' });

    const again = await claim(id);
    expect(again.status).toBe(409);
    expect((await errorOf(again)).code).toBe('conflict');

    clock.advance(60_000);
    expect((await t.request('POST', p(`/tool-calls/${id}/renew`), { apiKey: admin, body: { fence: otherFence } })).status).toBe(409);
    const renewed = await t.request('POST', p(`/tool-calls/${id}/renew`), { apiKey: admin, body: { fence } });
    expect(renewed.status).toBe(200);
    expect(new Date((await renewed.json()).leaseExpiresAt).getTime()).toBe(clock.now().getTime() + 5 * 60 * 1000);
    expect((await t.request('POST', p(`/tool-calls/${id}/renew`), { apiKey: admin, body: { fence: 1 } })).status).toBe(400);

    const released = await t.request('POST', p(`/tool-calls/${id}/release`), { apiKey: admin, body: { fence } });
    expect(released.status).toBe(200);
    expect(await released.json()).toMatchObject({ status: 'pending', leaseExpiresAt: null, fence });
    expect((await submit(id, fence, { version: 1, status: 'success', value: { total: 3 } })).status).toBe(409);

    const second = await (await claim(id)).json();
    expect(second.fence).not.toBe(fence);
    const notificationsBefore = t.runStarter.notifications.length;
    const stale = await submit(id, fence, { version: 1, status: 'success', value: { total: 3 } });
    expect(stale.status).toBe(409);
    expect((await errorOf(stale)).details).toMatchObject({ reason: 'stale_fence' });
    expect(t.runStarter.notifications.length).toBe(notificationsBefore);

    const malformed = await submit(id, second.fence, { version: 1, status: 'success', value: { total: SECRET_MARKER } });
    expect(malformed.status).toBe(202);
    expect(await malformed.json()).toEqual({ outcome: 'submitted', normalizedFailure: { code: 'invalid_tool_result', path: 'safeResult.value.total' } });
    expect(t.runStarter.notifications.slice(notificationsBefore)).toEqual([{ runId, signal: 'toolResultSubmitted' }]);
    const row = await rowOf(id);
    expect(row.status).toBe('failed');
    expect(row.failure).toMatchObject({ code: 'invalid_tool_result', path: 'safeResult.value.total' });
    expect(JSON.stringify(row)).not.toContain(SECRET_MARKER);

    const immutable = await submit(id, second.fence, { version: 1, status: 'success', value: { total: 4 } });
    expect(immutable.status).toBe(409);
    expect((await rowOf(id)).safeResult).toEqual({ version: 1, status: 'failure', value: null });
    expect((await eventsOf(id)).map((e) => e.kind)).toEqual([
      'tool_call.created',
      'tool_call.claimed',
      'tool_call.pending',
      'tool_call.claimed',
      'tool_call.failed',
    ]);
  });

  it('stores valid successes and caller failures; replays the same Idempotency-Key', async () => {
    const { runId } = await newRun();
    const recorded = (await record(runId, [call('lookup_order', { orderId: ORDER }), call('lookup_order', { orderId: ORDER })])).calls;
    const [a, b] = recorded.map((c) => c.toolCallId) as [string, string];
    const fenceA = (await (await claim(a)).json()).fence;
    const ok = await submit(a, fenceA, { version: 1, status: 'success', value: { total: 12.5 } }, { idempotencyKey: 'result-a' });
    expect(ok.status).toBe(202);
    expect(await ok.json()).toEqual({ outcome: 'submitted' });
    const replay = await submit(a, fenceA, { version: 1, status: 'success', value: { total: 12.5 } }, { idempotencyKey: 'result-a' });
    expect(replay.status).toBe(202);
    expect(replay.headers.get('idempotency-replayed')).toBe('true');
    expect(await rowOf(a)).toMatchObject({ status: 'succeeded', safeResult: { version: 1, status: 'success', value: { total: 12.5 } } });

    const fenceB = (await (await claim(b)).json()).fence;
    expect((await submit(b, fenceB, { version: 1, status: 'failure', value: { message: 'x'.repeat(2001) } })).status).toBe(400);
    expect((await submit(b, fenceB, { version: 2, status: 'success', value: {} })).status).toBe(400);
    expect((await submit(b, fenceB, { version: 1, status: 'failure', value: { message: 'Order system is down' } })).status).toBe(202);
    expect((await rowOf(b)).failure).toEqual({ code: 'tool_failed', message: 'Order system is down' });

    const listed = await t.request('GET', p(`/tool-calls?runId=${runId}`), { apiKey: admin });
    expect(listed.status).toBe(200);
    const body = await listed.json();
    expect(body.data.map((c: any) => c.id)).toEqual([a, b]);
    expect(body.data[0]).toMatchObject({
      status: 'succeeded',
      fence: fenceA,
      owner: 'caller',
      attempt: 1,
      safeArguments: { orderId: ORDER },
      sessionId: expect.any(String),
      turnId: expect.any(String),
    });
    expect((await t.request('GET', p('/tool-calls'), { apiKey: admin })).status).toBe(400);
  });

  it('refuses platform calls and calls awaiting approval; expires lapsed leases via expireOverdue', async () => {
    const { runId } = await newRun();
    const turnId = 'turn-expiry';
    const recorded = (
      await record(runId, [call('lookup_order', { orderId: ORDER }), call('compute_tax', { orderId: ORDER }), call('refund_order', { orderId: ORDER })], turnId)
    ).calls;
    const [caller, platform, gated] = recorded.map((c) => c.toolCallId) as [string, string, string];
    expect((await claim(platform)).status).toBe(409);
    expect((await claim(gated)).status).toBe(409);

    const claimed = await (await claim(caller)).json();
    const progress = await readToolProgress(t.database.db, { runId, turnId });
    expect(progress).toMatchObject({
      allFinal: false,
      waitingFor: 'approval',
      platformCalls: [{ toolCallId: platform, toolName: 'compute_tax', arguments: { orderId: ORDER } }],
    });
    expect(progress.nextDeadlineAtMs).toBe(new Date(claimed.leaseExpiresAt).getTime());

    clock.advance(5 * 60 * 1000);
    const late = await t.request('POST', p(`/tool-calls/${caller}/renew`), { apiKey: admin, body: { fence: claimed.fence } });
    expect(late.status).toBe(409);
    expect((await errorOf(late)).details).toMatchObject({ status: 'expired' });
    expect((await claim(caller)).status).toBe(409);
    await expireOverdue(sys(), { runId });
    expect(await rowOf(caller)).toMatchObject({ status: 'expired', failure: { code: 'tool_expired' } });
    expect((await eventsOf(caller)).at(-1)!.kind).toBe('tool_call.expired');
  });
});

describe("the runtime's progress check", () => {
  it('finalizes what is overdue anywhere in the run before it reads a turn, and with nothing overdue only reads', async () => {
    const { runId } = await newRun();
    const lapsing = (await record(runId, [call('lookup_order', { orderId: ORDER })], 'turn-lapsing')).calls[0]!.toolCallId;
    expect((await claim(lapsing)).status).toBe(200);
    const later = (await record(runId, [call('lookup_order', { orderId: ORDER })], 'turn-later')).calls[0]!.toolCallId;
    const check = () => checkToolProgress({ ctx: sys(), input: { runId, turnId: 'turn-later' } });
    expect(await check()).toMatchObject({ allFinal: false, waitingFor: 'tool', nextDeadlineAtMs: null, platformCalls: [] });
    expect((await rowOf(lapsing)).status).toBe('claimed');
    clock.advance(5 * 60 * 1000);
    expect(await check()).toMatchObject({ allFinal: false, waitingFor: 'tool' });
    expect(await rowOf(lapsing)).toMatchObject({ status: 'expired', failure: { code: 'tool_expired' } });
    expect((await rowOf(later)).status).toBe('pending');
  });
});

describe('the claim holder and its fence (issue 28)', () => {
  const renew = (id: string, fence: string, apiKey: string) => t.request('POST', p(`/tool-calls/${id}/renew`), { apiKey, body: { fence } });
  const release = (id: string, fence: string, apiKey: string) => t.request('POST', p(`/tool-calls/${id}/release`), { apiKey, body: { fence } });

  it('refuses renew, release and result from another principal than the claimer, even with its fence (409, nothing written)', async () => {
    const { runId } = await newRun();
    const [pending] = (await record(runId, [call('lookup_order', { orderId: ORDER })])).calls;
    const id = pending!.toolCallId;
    const holder = (await t.createApiKey(['tool_call:claim', 'tool_call:submit'], 'holder')).secret;
    const intruder = (await t.createApiKey(['tool_call:claim', 'tool_call:submit'], 'intruder')).secret;
    const claimed = await claim(id, holder);
    expect(claimed.status).toBe(200);
    const { fence } = await claimed.json();
    const before = await rowOf(id);
    const eventsBefore = (await eventsOf(id)).length;
    const notificationsBefore = t.runStarter.notifications.length;

    for (const refused of [
      await submit(id, fence, { version: 1, status: 'success', value: { total: 666 } }, { apiKey: intruder }),
      await renew(id, fence, intruder),
      await release(id, fence, intruder),
    ]) {
      expect(refused.status).toBe(409);
      const error = await errorOf(refused);
      expect(error.code).toBe('conflict');
      expect(error.details).toMatchObject({ toolCallId: id, reason: 'not_claim_holder' });
    }
    // A wrong fence from the intruder says the same: the refusal is no oracle for fences.
    const guessed = await submit(id, fence === '1' ? '2' : '1', { version: 1, status: 'success', value: { total: 666 } }, { apiKey: intruder });
    expect((await errorOf(guessed)).details).toMatchObject({ reason: 'not_claim_holder' });
    expect(await rowOf(id)).toEqual(before);
    expect((await eventsOf(id)).length).toBe(eventsBefore);
    expect(t.runStarter.notifications.length).toBe(notificationsBefore);

    expect((await renew(id, fence, holder)).status).toBe(200);
    expect((await submit(id, fence, { version: 1, status: 'success', value: { total: 1 } }, { apiKey: holder })).status).toBe(202);
    expect(await rowOf(id)).toMatchObject({ status: 'succeeded', safeResult: { version: 1, status: 'success', value: { total: 1 } } });
  });

  it('gives unguessable fences, a different one on every claim, and the previous one is stale', async () => {
    const { runId } = await newRun();
    const recorded = (
      await record(
        runId,
        [1, 2, 3, 4, 5].map(() => call('lookup_order', { orderId: ORDER })),
      )
    ).calls;
    const fences: string[] = [];
    for (const { toolCallId } of recorded) fences.push((await (await claim(toolCallId)).json()).fence);
    const id = recorded[0]!.toolCallId;
    expect((await release(id, fences[0]!, admin)).status).toBe(200);
    const reclaimed = (await (await claim(id)).json()).fence;
    fences.push(reclaimed);
    for (const fence of fences) {
      expect(fence).toMatch(/^[1-9][0-9]{0,14}$/);
      // Random over [1, 10^15): below 2^20 once in a billion; a counter would be 1, 2, ...
      expect(BigInt(fence)).toBeGreaterThan(2n ** 20n);
    }
    expect(new Set(fences).size).toBe(fences.length);
    const stale = await submit(id, fences[0]!, { version: 1, status: 'success', value: { total: 3 } });
    expect(stale.status).toBe(409);
    expect((await errorOf(stale)).details).toMatchObject({ reason: 'stale_fence' });
    expect((await submit(id, reclaimed, { version: 1, status: 'success', value: { total: 3 } })).status).toBe(202);
  });
});

describe('platform calls, results in the transcript, cancellation', () => {
  it('completes platform calls, then appends one tool message per call in provider order', async () => {
    const { runId } = await newRun();
    const turnId = 'turn-results';
    const recorded = (
      await record(
        runId,
        [
          call('compute_tax', { orderId: ORDER }, 'p1'),
          call('lookup_order', { orderId: ORDER }, 'c1'),
          call('compute_tax', { orderId: ORDER }, 'p2'),
          call('nope', {}, 'x1'),
        ],
        turnId,
      )
    ).calls;
    const [p1, c1, p2] = recorded.map((c) => c.toolCallId) as [string, string, string];
    await expect(appendToolResultMessages({ ctx: sys(), input: { runId, turnId } })).rejects.toThrow(/open tool calls/);

    expect(await completePlatformToolCall({ ctx: sys(), input: { toolCallId: p1, outcome: { status: 'success', value: { total: 2 } } } })).toMatchObject({
      status: 'succeeded',
    });
    expect(
      await completePlatformToolCall({ ctx: sys(), input: { toolCallId: p1, outcome: { status: 'failure', code: 'tool_failed', message: 'late' } } }),
    ).toMatchObject({ status: 'succeeded' });
    const bad = await completePlatformToolCall({ ctx: sys(), input: { toolCallId: p2, outcome: { status: 'success', value: { total: SECRET_MARKER } } } });
    expect(bad).toMatchObject({ status: 'failed', failure: { code: 'invalid_tool_result', path: 'safeResult.value.total' } });
    expect(JSON.stringify(await rowOf(p2))).not.toContain(SECRET_MARKER);
    expect((await readToolProgress(t.database.db, { runId, turnId })).waitingFor).toBe('tool');

    const fence = (await (await claim(c1)).json()).fence;
    await submit(c1, fence, { version: 1, status: 'success', value: { total: 7 } });
    expect(await readToolProgress(t.database.db, { runId, turnId })).toMatchObject({
      allFinal: true,
      waitingFor: null,
      nextDeadlineAtMs: null,
      platformCalls: [],
    });

    await appendToolResultMessages({ ctx: sys(), input: { runId, turnId } });
    await appendToolResultMessages({ ctx: sys(), input: { runId, turnId } });
    const toolMessages = (
      await t.database.db
        .select()
        .from(messages)
        .where(and(eq(messages.runId, runId), eq(messages.role, 'tool')))
    ).sort((x, y) => x.sequence - y.sequence);
    expect(toolMessages.map((m) => m.content)).toEqual([
      { toolCallId: 'p1', toolName: 'compute_tax', result: { total: 2 }, isError: false },
      { toolCallId: 'c1', toolName: 'lookup_order', result: { total: 7 }, isError: false },
      {
        toolCallId: 'p2',
        toolName: 'compute_tax',
        result: { code: 'invalid_tool_result', message: expect.any(String), path: 'safeResult.value.total' },
        isError: true,
      },
      { toolCallId: 'x1', toolName: 'nope', result: { code: 'tool_failed', message: expect.stringContaining('no tool named') }, isError: true },
    ]);
    expect(toolMessages.map((m) => m.stepKey)).toEqual(recorded.map((c) => `tool:${c.toolCallId}`));
  });

  it('cancels open calls and expires pending approvals when the run ends', async () => {
    const { runId } = await newRun();
    const recorded = (await record(runId, [call('lookup_order', { orderId: ORDER }), call('refund_order', { orderId: ORDER }), call('nope', {})])).calls;
    await claim(recorded[0]!.toolCallId);
    await cancelOpenToolCalls(sys(), { runId });
    await cancelOpenToolCalls(sys(), { runId });
    const rows = await Promise.all(recorded.map((c) => rowOf(c.toolCallId)));
    expect(rows.map((r) => r.status)).toEqual(['cancelled', 'cancelled', 'failed']);
    expect(rows[0]!.failure).toMatchObject({ code: 'tool_cancelled' });
    const approval = (await (await t.request('GET', p(`/approvals?runId=${runId}`), { apiKey: admin })).json()).data[0];
    expect(approval.status).toBe('expired');
    expect((await eventsOf(approval.id)).map((e) => [e.kind, e.publicPayload.reason])).toEqual([
      ['approval.requested', undefined],
      ['approval.expired', 'run_ended'],
    ]);
  });
});

describe('pending work, session detail and scopes', () => {
  it('lists unresolved caller calls and approvals; the session detail shows them', async () => {
    const { runId, sessionId } = await newRun();
    const recorded = (
      await record(runId, [call('lookup_order', { orderId: ORDER }), call('compute_tax', { orderId: ORDER }), call('refund_order', { orderId: ORDER })])
    ).calls;
    const work = await (await t.request('GET', p('/pending-work'), { apiKey: admin })).json();
    expect(work.toolCalls.map((c: any) => c.id)).toContain(recorded[0]!.toolCallId);
    expect(work.toolCalls.map((c: any) => c.id)).not.toContain(recorded[1]!.toolCallId);
    expect(work.approvals.map((a: any) => a.toolCallId)).toContain(recorded[2]!.toolCallId);

    const detail = await (await t.request('GET', p(`/sessions/${sessionId}`), { apiKey: admin })).json();
    expect(detail.pendingWork.toolCalls.map((c: any) => c.id)).toEqual([recorded[0]!.toolCallId]);
    expect(detail.pendingWork.approvals.map((a: any) => a.toolCallId)).toEqual([recorded[2]!.toolCallId]);
    expect(detail.debug.toolCalls.map((c: any) => c.id)).toEqual(recorded.map((c) => c.toolCallId));
    expect(detail.debug.approvals).toHaveLength(1);
    expect(detail.debug.productEvents.map((e: any) => e.kind)).toEqual(expect.arrayContaining(['tool_call.created', 'approval.requested']));
  });

  it('enforces run:read, tool_call:claim and tool_call:submit', async () => {
    const { runId } = await newRun();
    const [pending] = (await record(runId, [call('lookup_order', { orderId: ORDER })])).calls;
    const reader = (await t.createApiKey(['run:read'], 'reader')).secret;
    const claimer = (await t.createApiKey(['tool_call:claim'], 'claimer')).secret;
    expect((await t.request('GET', p(`/tool-calls?runId=${runId}`), { apiKey: reader })).status).toBe(200);
    expect((await t.request('GET', p(`/tool-calls?runId=${runId}`), { apiKey: claimer })).status).toBe(403);
    expect((await claim(pending!.toolCallId, reader)).status).toBe(403);
    const claimed = await claim(pending!.toolCallId, claimer);
    expect(claimed.status).toBe(200);
    const fence = (await claimed.json()).fence;
    expect((await submit(pending!.toolCallId, fence, { version: 1, status: 'success', value: { total: 1 } }, { apiKey: claimer })).status).toBe(403);
    expect((await t.request('POST', p(`/tool-calls/${pending!.toolCallId}/claim`), { apiKey: claimer, body: {}, idempotencyKey: null })).status).toBe(400);
  });
});
