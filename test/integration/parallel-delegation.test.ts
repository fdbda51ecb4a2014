import { asc, eq, inArray } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { delegationCalls, productEvents, runs, sessions, toolCalls } from '../../db/schema/index.ts';
import { startRunApp } from '../support/run-app.ts';
import { createTestAgent } from '../support/test-agents.ts';

/**
 * Parallel delegation through the real worker (docs/decisions/parallel-delegation.md): the
 * delegation calls of one turn run their child runs at the same time, up to each delegate's
 * `maxParallel` and the run's ceiling (`SVC_RUN_DELEGATION_PARALLELISM`, 4 here); the answers come
 * back in call order; a child that fails is its call's error and the others go on; cancelling the
 * coordinator cancels the running children and withdraws the waiting ones. Concurrency is read
 * from the order of the children's product events (each `run.running` before any child settles),
 * not from the clock.
 */
let f: Awaited<ReturnType<typeof startRunApp>>;
const CEILING = 4;

beforeAll(async () => {
  f = await startRunApp({ env: { SVC_RUN_DELEGATION_PARALLELISM: String(CEILING) } });
}, 120_000);
afterAll(() => f?.close());
// A test that ends a fan-out early leaves replies it scripted unused.
afterEach(() => f.fakes.vendor_a.reset());

const agent = (name: string, config: Record<string, unknown> = {}) => createTestAgent(f, name, config);
async function coordinator(delegates: Array<{ key: string; versionId: string; maxParallel: number }>) {
  return agent('coordinator', {
    delegates: delegates.map((delegate) => ({ ...delegate, agentVersionId: delegate.versionId, versionId: undefined, description: `The ${delegate.key}.` })),
  });
}
const delegateCalls = (key: string, count: number) =>
  Array.from({ length: count }, (_, i) => ({ name: 'delegate_agent', arguments: { delegateKey: key, message: `Part ${i + 1}.` } }));
async function start(agentId: string) {
  const session = await f.call('POST', '/sessions', { agentId, initialMessage: 'Fan out.' });
  expect(session.status, JSON.stringify(session.body)).toBe(201);
  return { sessionId: session.body.id as string, runId: session.body.latestRunId as string };
}
/** The child runs of a coordinator run's calls, in call order. */
async function childRunsOf(runId: string) {
  return f.t.database.db
    .select({ toolCallId: toolCalls.id, childRunId: delegationCalls.childRunId, state: runs.state })
    .from(delegationCalls)
    .innerJoin(toolCalls, eq(toolCalls.id, delegationCalls.toolCallId))
    .innerJoin(runs, eq(runs.id, delegationCalls.childRunId))
    .where(eq(toolCalls.runId, runId))
    .orderBy(asc(toolCalls.createdAt), asc(toolCalls.id));
}
/** How many of the runs were running at once at most, by the order of their product events. */
async function mostAtOnce(runIds: string[]) {
  const events = await f.t.database.db
    .select({ kind: productEvents.kind, runId: productEvents.aggregateId })
    .from(productEvents)
    .where(inArray(productEvents.aggregateId, runIds))
    .orderBy(asc(productEvents.projectPosition));
  const running = new Set<string>();
  let most = 0;
  for (const event of events) {
    if (event.kind === 'run.running') running.add(event.runId);
    if (['run.completed', 'run.failed', 'run.cancelled', 'run.timed_out'].includes(event.kind)) running.delete(event.runId);
    most = Math.max(most, running.size);
  }
  return most;
}
/**
 * A fan-out of four against a budget that allows three: once the coordinator and every child have
 * settled, three children completed and one failed `budget_exceeded`; the coordinator run and the
 * refused child as the API shows them.
 */
async function oneOfFourRefused(runId: string) {
  const coordinatorRun = await f.waitForRun(runId);
  const children = await childRunsOf(runId);
  for (const child of children) await f.waitForRun(child.childRunId);
  const settled = await Promise.all(children.map(async (child) => (await f.call('GET', `/runs/${child.childRunId}`)).body));
  expect(settled.map((run) => run.state).sort()).toEqual(['completed', 'completed', 'completed', 'failed']);
  const refused = settled.find((run) => run.state === 'failed');
  expect(refused.failure.errorCode).toBe('budget_exceeded');
  return { coordinatorRun, refused };
}
const callsOf = async (runId: string) => (await f.call('GET', `/tool-calls?runId=${runId}`)).body.data as Array<Record<string, any>>;

describe('parallel delegation', () => {
  it('runs a turn’s four delegations at once and answers in call order', async () => {
    const researcher = await agent('researcher');
    const lead = await coordinator([{ key: 'researcher', versionId: researcher.versionId, maxParallel: 4 }]);
    f.fakes.vendor_a.reply({ toolCalls: delegateCalls('researcher', 4) });
    for (let i = 0; i < 4; i++) f.fakes.vendor_a.reply({ text: 'Found it.', delayMs: 1_000 });
    f.fakes.vendor_a.reply({ text: 'All four found it.' });
    const first = f.fakes.vendor_a.requests.length;
    const { sessionId, runId } = await start(lead.id);
    expect((await f.waitForRun(runId)).state).toBe('completed');

    const children = await childRunsOf(runId);
    expect(children.map((child) => child.state)).toEqual(['completed', 'completed', 'completed', 'completed']);
    expect(await mostAtOnce(children.map((child) => child.childRunId))).toBe(4);
    // Four child sessions of the one delegate, each with its part of the work.
    const childSessions = await f.t.database.db.select().from(sessions).where(eq(sessions.parentSessionId, sessionId));
    expect(childSessions).toHaveLength(4);
    const parts = f.fakes.vendor_a.requests.slice(first + 1, first + 5).map((request) => JSON.stringify(request.body).match(/Part (\d)\./)![1]);
    expect(parts.sort()).toEqual(['1', '2', '3', '4']);
    // The coordinator's next turn has the four answers, in the order of its calls.
    const calls = await callsOf(runId);
    expect(calls.map((call) => [call.status, call.safeResult.value.childRunId])).toEqual(children.map((child) => ['succeeded', child.childRunId]));
    const last = JSON.stringify(f.fakes.vendor_a.requests.at(-1)!.body);
    expect(last.split('Found it.').length - 1).toBe(4);
    // Faster than one after another: the run took less than the four children's model time.
    const [row] = await f.t.database.db.select().from(runs).where(eq(runs.id, runId));
    expect(row!.settledAt!.getTime() - row!.admittedAt!.getTime()).toBeLessThan(4 * 1_000);
  }, 90_000);

  it('keeps to a delegate’s maxParallel and to the run’s ceiling; the rest wait queued, in order', async () => {
    const pair = await agent('pair worker');
    const crowd = await agent('crowd worker');
    const lead = await coordinator([
      { key: 'pair', versionId: pair.versionId, maxParallel: 2 },
      { key: 'crowd', versionId: crowd.versionId, maxParallel: 8 },
    ]);
    // Two rounds: four of a delegate with maxParallel 2, then six of one with 8 under the ceiling of 4.
    f.fakes.vendor_a.reply({ toolCalls: delegateCalls('pair', 4) });
    for (let i = 0; i < 4; i++) f.fakes.vendor_a.reply({ text: 'Paired.', delayMs: 300 });
    f.fakes.vendor_a.reply({ toolCalls: delegateCalls('crowd', 6) });
    for (let i = 0; i < 6; i++) f.fakes.vendor_a.reply({ text: 'Crowded.', delayMs: 300 });
    f.fakes.vendor_a.reply({ text: 'Done.' });
    const { runId } = await start(lead.id);
    expect((await f.waitForRun(runId)).state).toBe('completed');
    const children = await childRunsOf(runId);
    expect(children).toHaveLength(10);
    expect(children.every((child) => child.state === 'completed')).toBe(true);
    expect(await mostAtOnce(children.slice(0, 4).map((child) => child.childRunId))).toBe(2);
    expect(await mostAtOnce(children.slice(4).map((child) => child.childRunId))).toBe(CEILING);
    // Waiting children start in call order: the first two of the pair before the last two.
    const admitted = await f.t.database.db
      .select({ id: runs.id, admittedAt: runs.admittedAt })
      .from(runs)
      .where(
        inArray(
          runs.id,
          children.slice(0, 4).map((child) => child.childRunId),
        ),
      );
    const at = new Map(admitted.map((row) => [row.id, row.admittedAt!.getTime()]));
    const [a, b, c, d] = children.slice(0, 4).map((child) => at.get(child.childRunId)!);
    expect(Math.max(a!, b!)).toBeLessThanOrEqual(Math.min(c!, d!));
  }, 90_000);

  it('a child that fails is its call’s error result; the others go on and the coordinator completes', async () => {
    const helper = await agent('helper');
    const lead = await coordinator([{ key: 'helper', versionId: helper.versionId, maxParallel: 3 }]);
    f.fakes.vendor_a.reply({ toolCalls: delegateCalls('helper', 3) });
    f.fakes.vendor_a.reply({ text: 'Helped.', delayMs: 200 }).fail({ status: 400, message: 'bad request' }).reply({ text: 'Helped.', delayMs: 200 });
    f.fakes.vendor_a.reply({ text: 'Two of three.' });
    const { runId } = await start(lead.id);
    expect((await f.waitForRun(runId)).state).toBe('completed');
    const calls = await callsOf(runId);
    expect(calls.map((call) => call.status).sort()).toEqual(['failed', 'succeeded', 'succeeded']);
    expect(calls.find((call) => call.status === 'failed')!.failure.reason).toBe('child_failed');
    expect((await childRunsOf(runId)).map((child) => child.state).sort()).toEqual(['completed', 'completed', 'failed']);
  }, 90_000);

  it('cancelling the coordinator mid-fan-out cancels the running children and withdraws the waiting ones', async () => {
    const slow = await agent('slow helper');
    const lead = await coordinator([{ key: 'slow', versionId: slow.versionId, maxParallel: 2 }]);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    f.fakes.vendor_a.reply({ toolCalls: delegateCalls('slow', 4) });
    for (let i = 0; i < 4; i++) f.fakes.vendor_a.reply({ text: 'Too late.', heldUntil: held });
    const first = f.fakes.vendor_a.requests.length;
    const { runId } = await start(lead.id);
    try {
      // Two running (their model calls in flight), two waiting queued.
      for (let i = 0; ; i++) {
        const children = await childRunsOf(runId);
        if (children.filter((child) => child.state === 'running').length === 2 && f.fakes.vendor_a.requests.length === first + 3) break;
        if (i > 400) throw new Error(`the children never ran: ${JSON.stringify(children)}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect((await childRunsOf(runId)).map((child) => child.state)).toEqual(['running', 'running', 'queued', 'queued']);
      const requestsAtCancel = f.fakes.vendor_a.requests.length;
      expect((await f.call('POST', `/runs/${runId}/cancel`)).status).toBe(202);
      expect((await f.waitForRun(runId)).state).toBe('cancelled');
      const children = await childRunsOf(runId);
      for (const child of children) expect((await f.waitForRun(child.childRunId)).state).toBe('cancelled');
      // One run.cancelled each, and no model call started after the cancel.
      const cancelledEvents = await f.t.database.db
        .select({ runId: productEvents.aggregateId })
        .from(productEvents)
        .where(eq(productEvents.kind, 'run.cancelled'));
      for (const child of children) expect(cancelledEvents.filter((event) => event.runId === child.childRunId)).toHaveLength(1);
      expect(f.fakes.vendor_a.requests.length).toBe(requestsAtCancel);
    } finally {
      release();
    }
  }, 90_000);

  it('an interrupt of the coordinator’s session ends the fan-out the same way, and the next turn runs', async () => {
    const slow = await agent('slow helper');
    const lead = await coordinator([{ key: 'slow', versionId: slow.versionId, maxParallel: 1 }]);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    f.fakes.vendor_a.reply({ toolCalls: delegateCalls('slow', 2) });
    f.fakes.vendor_a.reply({ text: 'Too late.', heldUntil: held });
    const first = f.fakes.vendor_a.requests.length;
    const { sessionId, runId } = await start(lead.id);
    try {
      while (f.fakes.vendor_a.requests.length < first + 2) await new Promise((resolve) => setTimeout(resolve, 50));
      f.fakes.vendor_a.reply({ text: 'Changed course.' });
      const next = await f.call('POST', `/sessions/${sessionId}/runs`, { message: 'Stop, do something else.', ifBusy: 'interrupt' });
      expect(next.status, JSON.stringify(next.body)).toBe(202);
      expect((await f.waitForRun(runId)).state).toBe('cancelled');
      expect((await childRunsOf(runId)).map((child) => child.state)).toEqual(['cancelled', 'cancelled']);
      const runsOfSession = (await f.call('GET', `/sessions/${sessionId}`)).body.runs as Array<{ id: string }>;
      expect((await f.waitForRun(runsOfSession.at(-1)!.id)).state).toBe('completed');
      expect(f.fakes.vendor_a.requests).toHaveLength(first + 3);
    } finally {
      release();
    }
  }, 90_000);

  it('a project budget that allows three children’s calls: the fourth child fails budget_exceeded, and the spend stays within it', async () => {
    const helper = await agent('budgeted helper');
    const lead = await coordinator([{ key: 'helper', versionId: helper.versionId, maxParallel: 4 }]);
    // Every fake call here spends the same 19 tokens (the fake's default usage), so the month's
    // average per call, which each child's check holds for a sibling's call in flight, is exact.
    const PER_CALL = 19;
    const usage = (await f.call('GET', '/usage')).body.totals;
    const before = usage.inputTokens + usage.outputTokens;
    expect(before).toBe(usage.invocations * PER_CALL);
    // The coordinator's first call and three children's.
    const limit = before + PER_CALL + 3 * PER_CALL;
    expect((await f.call('PATCH', '', { budget: { maxMonthlyTokens: limit } })).status).toBe(200);
    try {
      f.fakes.vendor_a.reply({ toolCalls: delegateCalls('helper', 4) });
      for (let i = 0; i < 3; i++) f.fakes.vendor_a.reply({ text: 'Within budget.', delayMs: 500 });
      const first = f.fakes.vendor_a.requests.length;
      const { runId } = await start(lead.id);
      const { coordinatorRun, refused } = await oneOfFourRefused(runId);
      // Held by its siblings' calls in flight, or spent by them already when it came to check.
      expect(refused.failure.errorExplanation).toMatch(/^The project's monthly budget of [0-9,]+ tokens is spent/);
      // The refused child made no call; the spend reached the limit and no more.
      expect(f.fakes.vendor_a.requests.length - first).toBe(4);
      const after = (await f.call('GET', '/usage')).body.totals;
      expect(after.inputTokens + after.outputTokens).toBe(limit);
      // The budget is spent: the coordinator's next call is refused too.
      expect(coordinatorRun.state).toBe('failed');
      expect(coordinatorRun.failure.errorCode).toBe('budget_exceeded');
      const calls = await callsOf(runId);
      expect(calls.map((call) => call.failure?.reason ?? 'ok').sort()).toEqual(['child_failed', 'ok', 'ok', 'ok']);
    } finally {
      expect((await f.call('PATCH', '', { budget: null })).status).toBe(200);
    }
  }, 90_000);

  it('a coordinator session’s budget covers its children: the fourth child fails budget_exceeded, and the tree spends no more', async () => {
    const helper = await agent('budgeted helper');
    const lead = await coordinator([{ key: 'helper', versionId: helper.versionId, maxParallel: 4 }]);
    // Every fake call spends the fake's default 19 tokens: the coordinator's first call and three children's fit.
    const PER_CALL = 19;
    const limit = 4 * PER_CALL;
    f.fakes.vendor_a.reply({ toolCalls: delegateCalls('helper', 4) });
    for (let i = 0; i < 3; i++) f.fakes.vendor_a.reply({ text: 'Within budget.', delayMs: 500 });
    const first = f.fakes.vendor_a.requests.length;
    const session = await f.call('POST', '/sessions', { agentId: lead.id, initialMessage: 'Fan out.', budget: { maxTokens: limit } });
    expect(session.status, JSON.stringify(session.body)).toBe(201);
    const runId = session.body.latestRunId as string;
    const { coordinatorRun, refused } = await oneOfFourRefused(runId);
    expect(refused.failure.errorExplanation).toMatch(/^The coordinator session's budget \(its delegates' spend included\) of 76 tokens is spent/);
    // The refused child made no call; the coordinator session's own counters hold its own call only.
    expect(f.fakes.vendor_a.requests.length - first).toBe(4);
    const childSessions = await f.t.database.db.select().from(sessions).where(eq(sessions.parentSessionId, session.body.id));
    const spent = childSessions.reduce((sum, row) => sum + row.inputTokens + row.outputTokens, 0);
    expect(spent).toBe(3 * PER_CALL);
    const [own] = await f.t.database.db.select().from(sessions).where(eq(sessions.id, session.body.id));
    expect(own!.inputTokens + own!.outputTokens).toBe(PER_CALL);
    // The tree's budget is spent: the coordinator's next call is refused by the same budget.
    expect(coordinatorRun.state).toBe('failed');
    expect(coordinatorRun.failure.errorExplanation).toMatch(/^The coordinator session's budget/);
  }, 90_000);
});
