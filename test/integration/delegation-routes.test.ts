import { randomUUID } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runs } from '../../db/schema/index.ts';
import { appendProductEvent } from '../../services/kernel/events/index.ts';
import { systemContext } from '../../services/kernel/service-context.ts';
import { startRunApp } from '../support/run-app.ts';

/**
 * The delegation routes under a coordinator session (`/sessions/{id}/delegations`): read, message
 * (202 only once the child's latest run settled, 409 otherwise), cancel (closes the relation,
 * cancels the child's unsettled run), scopes exactly as spec 2, idempotent replays, bad input.
 */
let f: Awaited<ReturnType<typeof startRunApp>>;
let sessionId: string;
let delegationId: string;
let childSessionId: string;
let childVersionId: string;

beforeAll(async () => {
  f = await startRunApp();
  const child = await f.call('POST', '/agents', {
    name: 'Child',
    initialConfig: { systemPrompt: 'You are the child.', modelPreset: 'fast', limits: { maxTurns: 4 } },
  });
  childVersionId = child.body.latestVersionId;
  const coordinator = await f.call('POST', '/agents', {
    name: 'Coordinator',
    initialConfig: {
      systemPrompt: 'Coordinate.',
      modelPreset: 'fast',
      limits: { maxTurns: 6 },
      delegates: [{ key: 'child', description: 'The child.', agentVersionId: childVersionId, maxParallel: 1 }],
    },
  });
  f.fakes.vendor_a
    .reply({ toolCalls: [{ name: 'delegate_agent', arguments: { delegateKey: 'child', message: 'First task.' } }] })
    .reply({ text: 'First done.' })
    .reply({ text: 'Coordinated.' });
  const session = await f.call('POST', '/sessions', { agentId: coordinator.body.id, initialMessage: 'Start.' });
  sessionId = session.body.id;
  expect((await f.waitForRun(session.body.latestRunId)).state).toBe('completed');
}, 120_000);
afterAll(() => f?.close());

const base = () => `/sessions/${sessionId}/delegations`;
const withScopes = async (...scopes: string[]) => (await f.t.createApiKey(scopes, `scoped-${randomUUID().slice(0, 6)}`)).secret;

/**
 * Cancels the delegation while a run step holds the child run's row and then appends to the
 * project's event log, as the runtime's steps do (run row first, events last). Cancelling must
 * take the locks in the same order, or PostgreSQL ends one of the two as a deadlock. (On PGlite,
 * one connection: the cancel alone.)
 */
async function cancelBesideARunStep(childRunId: string) {
  const cancel = () => f.call('POST', `${base()}/${delegationId}/cancel`);
  if (f.t.database.driver !== 'postgres') return cancel();
  let answer: ReturnType<typeof cancel> | undefined;
  await f.t.database.db.transaction(async (tx) => {
    const [run] = await tx.select().from(runs).where(eq(runs.id, childRunId)).for('update');
    answer = cancel();
    // Until the cancel waits for a lock this transaction holds.
    for (let waiting = 0; waiting === 0; await new Promise((resolve) => setTimeout(resolve, 20))) {
      const result = await f.t.database.db.execute(sql`select count(*)::int as waiting from pg_locks where not granted`);
      waiting = Number((result as unknown as Array<{ waiting: number }>)[0]?.waiting ?? 0);
    }
    const ctx = systemContext({ db: tx as never, logger: f.t.deps.logger });
    await appendProductEvent(ctx, {
      organizationId: run!.organizationId,
      projectId: run!.projectId,
      aggregateType: 'run',
      aggregateId: run!.id,
      kind: 'run.progressed',
      publicPayload: {},
    });
  });
  return answer!;
}

describe('delegation routes', () => {
  it('lists and reads the relation with the record fields, also in the session detail', async () => {
    const reader = await withScopes('delegation:read');
    const list = await f.call('GET', base(), undefined, { apiKey: reader });
    expect(list.status).toBe(200);
    expect(list.body.data).toHaveLength(1);
    const [delegation] = list.body.data;
    delegationId = delegation.id;
    childSessionId = delegation.childSessionId;
    expect(Object.keys(delegation).sort()).toEqual(
      [
        'childAgentVersionId',
        'childRuns',
        'childSessionId',
        'childThreadId',
        'closedAt',
        'coordinatorSessionId',
        'createdAt',
        'delegateKey',
        'id',
        'latestChildRunId',
        'latestChildRunState',
        'state',
        'workspaceSessionId',
      ].sort(),
    );
    expect(delegation).toMatchObject({
      coordinatorSessionId: sessionId,
      delegateKey: 'child',
      childAgentVersionId: childVersionId,
      workspaceSessionId: sessionId,
      state: 'open',
      latestChildRunState: 'completed',
      closedAt: null,
    });
    // Its one child run, asked for by the coordinator's call, with when it was queued, began and settled.
    expect(delegation.childRuns).toEqual([
      {
        childRunId: delegation.latestChildRunId,
        coordinatorRunId: expect.any(String),
        toolCallId: expect.any(String),
        state: 'completed',
        queuedAt: expect.any(String),
        startedAt: expect.any(String),
        settledAt: expect.any(String),
      },
    ]);
    expect(new Date(delegation.childRuns[0].queuedAt) <= new Date(delegation.childRuns[0].settledAt)).toBe(true);
    expect((await f.call('GET', `${base()}/${delegationId}`, undefined, { apiKey: reader })).body).toEqual(delegation);
    expect((await f.call('GET', `/sessions/${sessionId}`)).body.delegations).toEqual([delegation]);
    expect((await f.call('GET', `${base()}/${randomUUID()}`)).status).toBe(404);
    expect((await f.call('GET', `/sessions/${childSessionId}/delegations/${delegationId}`)).status).toBe(404);
  });

  it('messages the child once its latest run settled: 202, replayed with the same key, 409 while it works', async () => {
    f.fakes.vendor_a.reply({ text: 'Second done.', delayMs: 1_500 });
    const key = `message-${randomUUID()}`;
    const request = () =>
      f.t.request('POST', `/v1/projects/${f.projectId}${base()}/${delegationId}/messages`, {
        apiKey: f.apiKey,
        body: { message: 'Second task.' },
        idempotencyKey: key,
      });
    const first = await request();
    expect(first.status).toBe(202);
    const body = await first.json();
    expect(body).toEqual({ delegationId, childSessionId, childRunId: expect.any(String), status: 'queued' });
    const replay = await request();
    expect(replay.headers.get('idempotency-replayed')).toBe('true');
    expect(await replay.json()).toEqual(body);
    const busy = await f.call('POST', `${base()}/${delegationId}/messages`, { message: 'Third task.' });
    expect(busy.status).toBe(409);
    expect((await f.waitForRun(body.childRunId)).state).toBe('completed');
    expect((await f.t.database.db.select().from(runs).where(eq(runs.sessionId, childSessionId))).map((row) => row.state)).toEqual(['completed', 'completed']);
  }, 60_000);

  it("a child session's turns keep the coordinator's rules: ifBusy enqueue or interrupt there is a 400", async () => {
    for (const ifBusy of ['enqueue', 'interrupt']) {
      const refused = await f.call('POST', `/sessions/${childSessionId}/runs`, { message: 'Queue me', ifBusy });
      expect(refused.status).toBe(400);
      expect(refused.body.error.details.path).toBe('body.ifBusy');
    }
    expect((await f.t.database.db.select().from(runs).where(eq(runs.sessionId, childSessionId))).map((row) => row.state)).toEqual(['completed', 'completed']);
  });

  it('refuses bad input with 400 and its path, and each route needs its scopes', async () => {
    for (const [body, path] of [
      [{ message: '' }, 'body.message'],
      [{ message: 3 }, 'body.message'],
      [{ message: 'x', extra: 1 }, 'body.extra'],
      [{}, 'body.message'],
    ] as const) {
      const response = await f.call('POST', `${base()}/${delegationId}/messages`, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.error.details.path).toBe(path);
    }
    expect((await f.call('POST', `/sessions/${sessionId}/delegations/not-a-uuid/messages`, { message: 'x' })).status).toBe(400);
    for (const [method, path, body, lacking] of [
      ['GET', base(), undefined, ['delegation:read']],
      ['POST', `${base()}/${delegationId}/messages`, { message: 'x' }, ['delegation:message']],
      ['POST', `${base()}/${delegationId}/messages`, { message: 'x' }, ['run:create']],
      ['POST', `${base()}/${delegationId}/cancel`, undefined, ['delegation:cancel']],
      ['POST', `${base()}/${delegationId}/cancel`, undefined, ['run:cancel']],
    ] as const) {
      const all = ['delegation:read', 'delegation:message', 'run:create', 'delegation:cancel', 'run:cancel'];
      const key = await withScopes(...all.filter((scope) => !(lacking as readonly string[]).includes(scope)));
      const refused = await f.call(method, path, body, { apiKey: key });
      expect(refused.status, `${method} ${path} without ${lacking.join(', ')}`).toBe(403);
    }
  });

  it('cancel closes the relation and cancels the unsettled child run; later messages are refused', async () => {
    f.fakes.vendor_a.reply({ text: 'never', delayMs: 30_000 });
    const queued = await f.call('POST', `${base()}/${delegationId}/messages`, { message: 'Long task.' });
    expect(queued.status).toBe(202);
    await f.waitForRun(queued.body.childRunId, (run) => run.state === 'running');
    const cancelled = await cancelBesideARunStep(queued.body.childRunId as string);
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    expect(cancelled.body).toMatchObject({ id: delegationId, state: 'closed', closedAt: expect.any(String) });
    expect((await f.waitForRun(queued.body.childRunId)).state).toBe('cancelled');
    const again = await f.call('POST', `${base()}/${delegationId}/cancel`);
    expect(again.body.closedAt).toBe(cancelled.body.closedAt);
    const late = await f.call('POST', `${base()}/${delegationId}/messages`, { message: 'After the end.' });
    expect(late.status).toBe(409);
    const events = (await f.call('GET', `/sessions/${sessionId}`)).body.debug.productEvents.map((event: { kind: string }) => event.kind);
    expect(events.filter((kind: string) => kind === 'delegation.closed')).toHaveLength(1);
  }, 60_000);
});
