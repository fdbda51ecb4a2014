import { and, asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages, pendingTurns, productEvents, runs, workspaceBackups } from '../../db/schema/index.ts';
import { createBrowserSession } from '../../services/access/auth/index.ts';
import { systemContext } from '../../services/kernel/service-context.ts';
import { startRunApp } from '../support/run-app.ts';
import { takeSseFrames } from '../support/sse-frames.ts';

/**
 * Conversation control (issue 31): idle sessions, `ifBusy` (reject, enqueue, interrupt) with
 * pending turns handed off in the settlement's transaction, withdrawing a pending turn, and
 * forking a session from a settled run. The worker runs in this process against Temporal; the
 * model is the fake vendor_a at the wire.
 */
let f: Awaited<ReturnType<typeof startRunApp>>;

const lookupOrder = {
  name: 'lookup_order',
  description: 'Looks up an order',
  owner: 'caller',
  approval: 'never',
  inputSchema: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'], additionalProperties: false },
  outputSchema: { type: 'object', properties: { status: { type: 'string' } }, required: ['status'] },
};
const approvedLookup = { ...lookupOrder, name: 'approved_lookup', approval: 'always' };

beforeAll(async () => {
  f = await startRunApp();
}, 120_000);
afterAll(() => f?.close());

const project = () => `/v1/projects/${f.projectId}`;

/** A call with an explicit Idempotency-Key (`f.call` makes a fresh one each time). */
async function callWithKey(method: string, path: string, body: unknown, idempotencyKey: string) {
  const response = await f.t.request(method, `${project()}${path}`, { apiKey: f.apiKey, body, idempotencyKey });
  return { status: response.status, body: await response.json() };
}

async function createAgent(tools: unknown[] = [], systemPrompt = 'Answer briefly.') {
  const agent = await f.call('POST', '/agents', {
    name: `Control ${Math.random()}`,
    initialConfig: { systemPrompt, modelPreset: 'fast', tools, limits: { maxTurns: 6 } },
  });
  expect(agent.status, JSON.stringify(agent.body)).toBe(201);
  return agent.body as { id: string; latestVersionId: string; versions: Array<{ id: string; config: Record<string, unknown> }> };
}

/** A session whose first run waits for the caller's `lookup_order` result (busy until answered). */
async function busySession(message = 'Where is my order?') {
  f.fakes.vendor_a.reply({ toolCalls: [{ name: 'lookup_order', arguments: { orderId: 'A1' } }] });
  const agent = await createAgent([lookupOrder]);
  const session = await f.call('POST', '/sessions', { agentId: agent.id, initialMessage: message });
  expect(session.status).toBe(201);
  const runId = session.body.latestRunId as string;
  await f.waitForRun(runId, (run) => run.state === 'waiting_for_tool');
  return { agent, sessionId: session.body.id as string, runId };
}

async function answerTool(runId: string, status = 'shipped') {
  const list = await f.call('GET', `/tool-calls?runId=${runId}`);
  const call = list.body.data.find((item: { status: string }) => item.status === 'pending' || item.status === 'claimed');
  const claim = await f.call('POST', `/tool-calls/${call.id}/claim`);
  expect(claim.status).toBe(200);
  const result = await f.call('POST', `/tool-calls/${call.id}/result`, {
    fence: claim.body.fence,
    safeResult: { version: 1, status: 'success', value: { status } },
  });
  expect(result.status).toBe(202);
}

const sessionRuns = (sessionId: string) => f.t.database.db.select().from(runs).where(eq(runs.sessionId, sessionId)).orderBy(asc(runs.createdAt), asc(runs.id));

async function waitForRuns(sessionId: string, count: number, timeoutMs = 90_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const rows = await sessionRuns(sessionId);
    if (rows.length >= count && rows.every((run) => ['completed', 'failed', 'cancelled', 'timed_out'].includes(run.state))) return rows;
    if (Date.now() > deadline)
      throw new Error(`session ${sessionId}: ${rows.length} runs in states ${rows.map((run) => run.state).join(', ')} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const threadTexts = async (threadId: string) =>
  (await f.t.database.db.select().from(messages).where(eq(messages.threadId, threadId)).orderBy(asc(messages.sequence))).map((row) => ({
    role: row.role,
    content: row.content,
    runId: row.runId,
  }));

describe('idle sessions', () => {
  it('are created without a run or a workflow; the first turn starts run 1', async () => {
    const agent = await createAgent();
    const startsBefore = f.t.runStarter.starts.length;
    const created = await f.call('POST', '/sessions', { agentId: agent.id, title: 'Waiting for you' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ status: 'idle', latestRunId: null, run: null, agentVersionId: agent.latestVersionId, title: 'Waiting for you' });
    const sessionId = created.body.id as string;
    expect(f.t.runStarter.starts.length).toBe(startsBefore);
    // Temporal visibility: no workflow of this session exists.
    const projectWorkflows = async () => {
      const ids: string[] = [];
      for await (const execution of f.runtime.client.client.workflow.list({ query: `sessionId = "${sessionId}"` })) ids.push(execution.workflowId);
      return ids;
    };
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await projectWorkflows()).toEqual([]);
    expect(await sessionRuns(sessionId)).toEqual([]);
    const detail = await f.call('GET', `/sessions/${sessionId}`);
    expect(detail.body).toMatchObject({ status: 'idle', runs: [], transcript: [], pendingTurns: [], forkedFrom: null });
    const idle = await f.call('GET', `/sessions?status=idle&agentId=${agent.id}`);
    expect(idle.body.data.map((s: { id: string }) => s.id)).toEqual([sessionId]);
    const [createdEvent] = await f.t.database.db
      .select()
      .from(productEvents)
      .where(and(eq(productEvents.aggregateId, sessionId), eq(productEvents.kind, 'session.created')));
    expect(createdEvent!.publicPayload).toMatchObject({ status: 'idle', runId: null });
    // The session stream shows it idle: one `session.created` frame.
    const streamed = await f.t.request('GET', `${project()}/sessions/${sessionId}/events?once=true`, {
      apiKey: f.apiKey,
      headers: { accept: 'text/event-stream' },
    });
    expect(streamed.status).toBe(200);
    const frames = takeSseFrames(`${await streamed.text()}\n\n`).frames.filter((frame) => frame.data !== undefined);
    expect(frames.map((frame) => frame.event)).toEqual(['session.created']);
    expect(JSON.parse(frames[0]!.data!).publicPayload).toMatchObject({ sessionId, status: 'idle', runId: null });

    f.fakes.vendor_a.reply({ text: 'Hello there.' });
    const first = await f.call('POST', `/sessions/${sessionId}/runs`, { message: 'Hi', ifBusy: 'enqueue' });
    expect(first.status).toBe(202);
    expect(first.body).toMatchObject({ sessionId, state: 'queued' });
    expect(first.body).not.toHaveProperty('queued');
    expect((await f.waitForRun(first.body.id)).state).toBe('completed');
    const deadline = Date.now() + 30_000;
    while ((await projectWorkflows()).length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await projectWorkflows()).toEqual([`run:${first.body.id}`]);
    const after = await f.call('GET', `/sessions/${sessionId}`);
    expect(after.body).toMatchObject({ status: 'completed', latestRunId: first.body.id });
    expect(after.body.runs).toHaveLength(1);
  }, 60_000);
});

describe('ifBusy', () => {
  it('reject stays the default (409); a bad value is a 400; a session that is not busy takes every value as a plain turn', async () => {
    const { sessionId, runId } = await busySession();
    const plain = await f.call('POST', `/sessions/${sessionId}/runs`, { message: 'Again?' });
    expect(plain.status).toBe(409);
    expect(plain.body.error.details).toMatchObject({ latestRunId: runId });
    expect((await f.call('POST', `/sessions/${sessionId}/runs`, { message: 'Again?', ifBusy: 'reject' })).status).toBe(409);
    const later = await f.call('POST', `/sessions/${sessionId}/runs`, { message: 'Again?', ifBusy: 'later' });
    expect(later.status).toBe(400);
    expect(later.body.error.details.path).toBe('body.ifBusy');
    f.fakes.vendor_a.reply({ text: 'It shipped.' });
    await answerTool(runId);
    expect((await f.waitForRun(runId)).state).toBe('completed');
    f.fakes.vendor_a.reply({ text: 'Still shipped.' });
    const interrupt = await f.call('POST', `/sessions/${sessionId}/runs`, { message: 'And now?', ifBusy: 'interrupt' });
    expect(interrupt.status).toBe(202);
    expect(interrupt.body).toMatchObject({ sessionId, state: 'queued' });
    expect((await f.waitForRun(interrupt.body.id)).state).toBe('completed');
  }, 60_000);

  it('enqueue: 10 concurrent turns wait, then run one at a time in the order accepted, after the earlier run’s tool call and result', async () => {
    const { sessionId, runId } = await busySession('Track A1 please');
    const keys = Array.from({ length: 10 }, (_, i) => `enqueue-${sessionId}-${i}`);
    const answers = await Promise.all(
      keys.map((key, i) => callWithKey('POST', `/sessions/${sessionId}/runs`, { message: `follow-up ${i}`, ifBusy: 'enqueue' }, key)),
    );
    for (const answer of answers) {
      expect(answer.status, JSON.stringify(answer.body)).toBe(202);
      expect(answer.body).toMatchObject({ queued: true, pendingTurn: { sessionId, ifBusy: 'enqueue' } });
    }
    expect(answers.map((answer) => answer.body.pendingTurn.position).sort((a: number, b: number) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    const detail = await f.call('GET', `/sessions/${sessionId}`);
    expect(detail.body.status).toBe('waiting_for_tool');
    expect(detail.body.pendingTurns.map((turn: { position: number }) => turn.position)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    const accepted = (detail.body.pendingTurns as Array<{ id: string; message: string }>).map((turn) => turn.message);
    // A replayed key answers its stored pending turn.
    const replay = await callWithKey('POST', `/sessions/${sessionId}/runs`, { message: 'follow-up 3', ifBusy: 'enqueue' }, keys[3]!);
    expect(replay.status).toBe(202);
    expect(replay.body).toEqual(answers[3]!.body);
    expect((await f.call('GET', `/sessions/${sessionId}`)).body.pendingTurns).toHaveLength(10);

    f.fakes.vendor_a.reply({ text: 'A1 has shipped.' });
    for (let i = 0; i < 10; i++) f.fakes.vendor_a.reply({ text: `answer ${i}` });
    const requestsBefore = f.fakes.vendor_a.requests.length;
    await answerTool(runId);
    const all = await waitForRuns(sessionId, 11);
    expect(all.map((run) => run.state)).toEqual(Array(11).fill('completed'));
    // One unsettled run at a time: each run was created when (or after) the one before settled.
    for (let i = 1; i < all.length; i++) expect(all[i]!.createdAt.getTime()).toBeGreaterThanOrEqual(all[i - 1]!.settledAt!.getTime());
    expect(all.slice(1).map((run) => run.inputPublic.message)).toEqual(accepted);
    const turnRows = await f.t.database.db.select().from(pendingTurns).where(eq(pendingTurns.sessionId, sessionId)).orderBy(asc(pendingTurns.sequence));
    expect(turnRows.map((turn) => [turn.state, turn.runId])).toEqual(all.slice(1).map((run) => ['started', run.id]));
    // The thread: the first run's tool call and result stay adjacent; each turn's message enters with its run.
    const thread = await threadTexts(all[0]!.threadId);
    expect(thread.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant', ...Array(10).fill(['user', 'assistant']).flat()]);
    expect(
      thread
        .filter((message) => message.role === 'user')
        .slice(1)
        .map((message) => message.content.text),
    ).toEqual(accepted);
    // What the model received for the last turn: the whole conversation in that order.
    const sent = f.fakes.vendor_a.requests.slice(requestsBefore);
    expect(sent).toHaveLength(11);
    const last = JSON.stringify(sent.at(-1)!.body);
    const positions = [
      'Track A1 please',
      'lookup_order',
      'shipped',
      'A1 has shipped.',
      ...accepted.flatMap((text, i) => (i < 9 ? [text, `answer ${i}`] : [text])),
    ].map((text) => last.indexOf(text));
    expect(positions.every((position) => position >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect((await f.call('GET', `/sessions/${sessionId}`)).body.pendingTurns).toEqual([]);
    const again = await callWithKey('POST', `/sessions/${sessionId}/runs`, { message: 'follow-up 3', ifBusy: 'enqueue' }, keys[3]!);
    expect(again.body).toEqual(answers[3]!.body);
  }, 180_000);

  it('holds at most 16 pending turns: the 17th is a 409 naming the limit', async () => {
    const { sessionId, runId } = await busySession();
    for (let i = 0; i < 16; i++) expect((await f.call('POST', `/sessions/${sessionId}/runs`, { message: `m${i}`, ifBusy: 'enqueue' })).status).toBe(202);
    const over = await f.call('POST', `/sessions/${sessionId}/runs`, { message: 'one too many', ifBusy: 'enqueue' });
    expect(over.status).toBe(409);
    expect(over.body.error.details).toMatchObject({ limit: 16 });
    // An interrupt replaces them all and ends the active run.
    f.fakes.vendor_a.reply({ text: 'Interrupted and answered.' });
    const interrupt = await f.call('POST', `/sessions/${sessionId}/runs`, { message: 'Forget it', ifBusy: 'interrupt' });
    expect(interrupt.status).toBe(202);
    expect(interrupt.body.pendingTurn.position).toBe(1);
    const all = await waitForRuns(sessionId, 2);
    expect(all.map((run) => [run.id === runId, run.state])).toEqual([
      [true, 'cancelled'],
      [false, 'completed'],
    ]);
    const rows = await f.t.database.db.select().from(pendingTurns).where(eq(pendingTurns.sessionId, sessionId));
    expect(rows.filter((row) => row.state === 'withdrawn' && row.withdrawnReason === 'interrupted')).toHaveLength(16);
  }, 90_000);

  it('interrupt while waiting for a caller tool: the run is cancelled, a late result is refused, the new turn runs', async () => {
    const { sessionId, runId } = await busySession();
    const list = await f.call('GET', `/tool-calls?runId=${runId}`);
    const call = list.body.data[0];
    // The waiting event names what the run waits on.
    const [waiting] = await f.t.database.db
      .select()
      .from(productEvents)
      .where(and(eq(productEvents.aggregateId, runId), eq(productEvents.kind, 'run.waiting_for_tool')));
    expect(waiting!.publicPayload).toMatchObject({ waitingOn: { toolCallIds: [call.id] } });
    const claim = await f.call('POST', `/tool-calls/${call.id}/claim`);
    expect(claim.status).toBe(200);
    const queued = await f.call('POST', `/sessions/${sessionId}/runs`, { message: 'queued before the interrupt', ifBusy: 'enqueue' });
    expect(queued.status).toBe(202);
    f.fakes.vendor_a.reply({ text: 'New direction taken.' });
    const interrupt = await f.call('POST', `/sessions/${sessionId}/runs`, { message: 'Stop, do this instead', ifBusy: 'interrupt' });
    expect(interrupt.status).toBe(202);
    expect(interrupt.body).toMatchObject({ queued: true, pendingTurn: { ifBusy: 'interrupt', position: 1, message: 'Stop, do this instead' } });
    const all = await waitForRuns(sessionId, 2);
    expect(all.map((run) => run.state)).toEqual(['cancelled', 'completed']);
    expect(all[1]!.inputPublic.message).toBe('Stop, do this instead');
    // The new run's model request answers the interrupted call (vendors refuse a call without one).
    const input = (f.fakes.vendor_a.requests.at(-1)!.body as { input: Array<{ type?: string; call_id?: string; output?: string }> }).input;
    const calls = input.filter((item) => item.type === 'function_call').map((item) => item.call_id);
    const outputs = input.filter((item) => item.type === 'function_call_output');
    expect(outputs.map((item) => item.call_id)).toEqual(calls);
    expect(outputs.at(-1)!.output).toContain('tool_cancelled');
    const late = await f.call('POST', `/tool-calls/${call.id}/result`, {
      fence: claim.body.fence,
      safeResult: { version: 1, status: 'success', value: { status: 'late' } },
    });
    expect(late.status).toBe(409);
    const turns = await f.t.database.db.select().from(pendingTurns).where(eq(pendingTurns.sessionId, sessionId)).orderBy(asc(pendingTurns.sequence));
    expect(turns.map((turn) => [turn.message, turn.state, turn.withdrawnReason])).toEqual([
      ['queued before the interrupt', 'withdrawn', 'interrupted'],
      ['Stop, do this instead', 'started', null],
    ]);
  }, 90_000);

  it('interrupt while waiting for an approval: the approval closes, the new turn runs', async () => {
    f.fakes.vendor_a.reply({ toolCalls: [{ name: 'approved_lookup', arguments: { orderId: 'B2' } }] });
    const agent = await createAgent([approvedLookup]);
    const session = await f.call('POST', '/sessions', { agentId: agent.id, initialMessage: 'Check B2' });
    const runId = session.body.latestRunId as string;
    await f.waitForRun(runId, (run) => run.state === 'waiting_for_approval');
    const approvals = await f.call('GET', `/approvals?runId=${runId}`);
    const approval = approvals.body.data[0];
    expect(approval.status).toBe('pending');
    const [waiting] = await f.t.database.db
      .select()
      .from(productEvents)
      .where(and(eq(productEvents.aggregateId, runId), eq(productEvents.kind, 'run.waiting_for_approval')));
    expect(waiting!.publicPayload).toMatchObject({ waitingOn: { toolCallIds: [approval.toolCallId] } });
    f.fakes.vendor_a.reply({ text: 'Doing something else.' });
    const interrupt = await f.call('POST', `/sessions/${session.body.id}/runs`, { message: 'Never mind', ifBusy: 'interrupt' });
    expect(interrupt.status).toBe(202);
    const all = await waitForRuns(session.body.id, 2);
    expect(all.map((run) => run.state)).toEqual(['cancelled', 'completed']);
    const closed = await f.call('GET', `/approvals?runId=${runId}`);
    expect(closed.body.data[0].status).not.toBe('pending');
    expect((await f.call('POST', `/approvals/${approval.id}/decision`, { status: 'approved' })).status).toBe(409);
  }, 90_000);

  it('withdrawing the middle of three pending turns: it never runs; the third runs after the first', async () => {
    const { sessionId, runId } = await busySession();
    const turns = [];
    for (const message of ['first', 'second', 'third'])
      turns.push((await f.call('POST', `/sessions/${sessionId}/runs`, { message, ifBusy: 'enqueue' })).body.pendingTurn);
    const withdrawn = await f.call('DELETE', `/sessions/${sessionId}/pending-turns/${turns[1].id}`);
    expect(withdrawn.status).toBe(200);
    expect(withdrawn.body).toEqual({ id: turns[1].id, withdrawn: true });
    expect((await f.call('DELETE', `/sessions/${sessionId}/pending-turns/${turns[1].id}`)).status).toBe(200);
    expect((await f.call('DELETE', `/sessions/${sessionId}/pending-turns/00000000-0000-4000-8000-000000000000`)).status).toBe(404);
    const detail = await f.call('GET', `/sessions/${sessionId}`);
    expect(detail.body.pendingTurns.map((turn: { message: string; position: number }) => [turn.message, turn.position])).toEqual([
      ['first', 1],
      ['third', 2],
    ]);
    f.fakes.vendor_a.reply({ text: 'Done with the tool.' }).reply({ text: 'About first.' }).reply({ text: 'About third.' });
    await answerTool(runId);
    const all = await waitForRuns(sessionId, 3);
    expect(all.map((run) => [run.inputPublic.message, run.state])).toEqual([
      ['Where is my order?', 'completed'],
      ['first', 'completed'],
      ['third', 'completed'],
    ]);
    const tooLate = await f.call('DELETE', `/sessions/${sessionId}/pending-turns/${turns[0].id}`);
    expect(tooLate.status).toBe(409);
    expect(tooLate.body.error.details).toMatchObject({ runId: all[1]!.id });
  }, 90_000);

  it("withdrawing another principal's pending turn, or interrupting, needs run:cancel; one's own turn needs run:create alone", async () => {
    const { sessionId, runId } = await busySession();
    const queuer = (await f.t.createApiKey(['run:create'], 'queuer')).secret;
    const other = (await f.t.createApiKey(['run:create'], 'other creator')).secret;
    const canceller = (await f.t.createApiKey(['run:create', 'run:cancel'], 'canceller')).secret;
    const queue = async (message: string) => {
      const queued = await f.call('POST', `/sessions/${sessionId}/runs`, { message, ifBusy: 'enqueue' }, { apiKey: queuer });
      expect(queued.status, JSON.stringify(queued.body)).toBe(202);
      return queued.body.pendingTurn.id as string;
    };
    const [own, theirs] = [await queue('own'), await queue('theirs')];
    const withdraw = (turnId: string, apiKey: string) => f.call('DELETE', `/sessions/${sessionId}/pending-turns/${turnId}`, undefined, { apiKey });

    const refused = await withdraw(theirs, other);
    expect(refused.status).toBe(403);
    expect(refused.body.error.details).toMatchObject({ missingScopes: ['run:cancel'] });
    expect((await withdraw(own, queuer)).status).toBe(200);
    expect((await withdraw(theirs, canceller)).status).toBe(200);
    const interrupt = await f.call('POST', `/sessions/${sessionId}/runs`, { message: 'stop', ifBusy: 'interrupt' }, { apiKey: other });
    expect(interrupt.status).toBe(403);
    expect(interrupt.body.error.details).toMatchObject({ missingScopes: ['run:cancel'] });

    const turns = await f.t.database.db.select().from(pendingTurns).where(eq(pendingTurns.sessionId, sessionId)).orderBy(asc(pendingTurns.sequence));
    expect(turns.map((turn) => [turn.message, turn.state])).toEqual([
      ['own', 'withdrawn'],
      ['theirs', 'withdrawn'],
    ]);
    expect((await f.call('GET', `/runs/${runId}`)).body.state).toBe('waiting_for_tool');
    f.fakes.vendor_a.reply({ text: 'Done.' });
    await answerTool(runId);
    await waitForRuns(sessionId, 1);
  }, 90_000);
});

describe('fork', () => {
  it('from the second of three runs onto another version: the fork carries exactly those messages; the source is unchanged', async () => {
    const agent = await createAgent([], 'You are version one.');
    f.fakes.vendor_a.reply({ text: 'reply one' }).reply({ text: 'reply two' }).reply({ text: 'reply three' });
    const session = await f.call('POST', '/sessions', { agentId: agent.id, initialMessage: 'question one' });
    const sessionId = session.body.id as string;
    await f.waitForRun(session.body.latestRunId);
    for (const message of ['question two', 'question three']) {
      const run = await f.call('POST', `/sessions/${sessionId}/runs`, { message });
      await f.waitForRun(run.body.id);
    }
    const sourceRuns = await sessionRuns(sessionId);
    const v2 = await f.call('POST', `/agents/${agent.id}/versions`, {
      config: { systemPrompt: 'You are version two.', modelPreset: 'fast', limits: { maxTurns: 6 } },
    });
    expect(v2.status, JSON.stringify(v2.body)).toBe(201);
    const before = await f.call('GET', `/sessions/${sessionId}`);

    f.fakes.vendor_a.reply({ text: 'forked reply' });
    const fork = await f.call('POST', `/sessions/${sessionId}/fork`, {
      fromRunId: sourceRuns[1]!.id,
      agentVersionId: v2.body.id,
      title: 'Try v2',
      initialMessage: 'question four',
    });
    expect(fork.status, JSON.stringify(fork.body)).toBe(201);
    expect(fork.body).toMatchObject({
      agentVersionId: v2.body.id,
      title: 'Try v2',
      status: 'queued',
      forkedFrom: { sessionId, runId: sourceRuns[1]!.id },
      workspace: 'empty',
    });
    expect(fork.body.id).not.toBe(sessionId);
    const requestsBefore = f.fakes.vendor_a.requests.length;
    expect((await f.waitForRun(fork.body.run.id)).state).toBe('completed');
    const request = f.fakes.vendor_a.requests[requestsBefore]!.body as { instructions: string };
    expect(request.instructions).toContain('You are version two.');
    expect(request.instructions).not.toContain('You are version one.');
    const sent = JSON.stringify(request);
    const order = ['question one', 'reply one', 'question two', 'reply two', 'question four'].map((text) => sent.indexOf(text));
    expect(order.every((position) => position >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(sent).not.toContain('question three');
    expect(sent).not.toContain('reply three');

    const forkDetail = await f.call('GET', `/sessions/${fork.body.id}`);
    expect(forkDetail.body.forkedFrom).toEqual({ sessionId, runId: sourceRuns[1]!.id });
    expect(forkDetail.body.transcript.map((message: { role: string }) => message.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
    expect(forkDetail.body.runs).toHaveLength(1);
    const after = await f.call('GET', `/sessions/${sessionId}`);
    expect(after.body.transcript).toEqual(before.body.transcript);
    expect(after.body.runs).toEqual(before.body.runs);
    expect(after.body.lastActivityAt).toBe(before.body.lastActivityAt);
    // The source run's messages still read as its own (not the fork's copies).
    const runMessages = await f.call('GET', `/runs/${sourceRuns[1]!.id}/messages`);
    expect(runMessages.body.data).toHaveLength(2);

    // A fork of the fork, idle, from its only run, on the source's version by default.
    const forkOfFork = await f.call('POST', `/sessions/${fork.body.id}/fork`, { fromRunId: fork.body.run.id });
    expect(forkOfFork.status).toBe(201);
    expect(forkOfFork.body).toMatchObject({
      status: 'idle',
      run: null,
      latestRunId: null,
      agentVersionId: v2.body.id,
      forkedFrom: { sessionId: fork.body.id, runId: fork.body.run.id },
    });
    const nested = await f.call('GET', `/sessions/${forkOfFork.body.id}`);
    expect(nested.body.transcript.map((message: { role: string }) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user', 'assistant']);
  }, 120_000);

  it('refuses an unsettled run (409), a run of another session (400), an unknown version (404) and a session of another project', async () => {
    const { sessionId, runId } = await busySession();
    const unsettled = await f.call('POST', `/sessions/${sessionId}/fork`, { fromRunId: runId });
    expect(unsettled.status).toBe(409);
    const other = await busySession('another session');
    const elsewhere = await f.call('POST', `/sessions/${sessionId}/fork`, { fromRunId: other.runId });
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body.error.details.path).toBe('body.fromRunId');
    f.fakes.vendor_a.reply({ text: 'ok' });
    await answerTool(runId);
    await f.waitForRun(runId);
    const unknownVersion = await f.call('POST', `/sessions/${sessionId}/fork`, { fromRunId: runId, agentVersionId: '00000000-0000-4000-8000-000000000000' });
    expect(unknownVersion.status).toBe(404);
    const badBody = await f.call('POST', `/sessions/${sessionId}/fork`, { fromRunId: runId, ifBusy: 'enqueue' });
    expect(badBody.status).toBe(400);
    // The owner, signed in to a neighbour project of the same organization, names this session there.
    const login = await f.t.login();
    const neighbour = await f.t.request('POST', '/v1/projects', { cookie: login.cookie, body: { slug: `neighbour-${Date.now()}`, name: 'Neighbour' } });
    expect(neighbour.status).toBe(201);
    const neighbourId = ((await neighbour.json()) as { id: string }).id;
    const sys = systemContext({ db: f.t.database.db, logger: f.t.deps.logger, clock: f.t.deps.clock });
    const inNeighbour = await createBrowserSession({
      ctx: sys,
      input: { organizationId: login.context.organization.id, subject: login.context.principal.subject, projectId: neighbourId },
    });
    const crossProject = await f.t.request('POST', `/v1/projects/${neighbourId}/sessions/${sessionId}/fork`, {
      cookie: `svc_session=${inNeighbour.token}`,
      body: { fromRunId: runId },
    });
    expect(crossProject.status, await crossProject.clone().text()).toBe(404);
    const withKey = await f.t.request('POST', `/v1/projects/${neighbourId}/sessions/${sessionId}/fork`, { apiKey: f.apiKey, body: { fromRunId: runId } });
    expect([403, 404]).toContain(withKey.status);
    // Nothing was written by the refusals: the source has its one run and no fork exists.
    expect((await f.t.database.db.select().from(workspaceBackups).where(eq(workspaceBackups.workspaceSessionId, sessionId))).length).toBe(0);
    expect(await sessionRuns(sessionId)).toHaveLength(1);
  }, 90_000);
});

describe('archive and delete', () => {
  it('archive cancels the active run and withdraws pending turns; the session stays readable, takes no turns, and lists by archived', async () => {
    const { agent, sessionId, runId } = await busySession();
    const pending = await f.call('POST', `/sessions/${sessionId}/runs`, { message: 'And then?', ifBusy: 'enqueue' });
    expect(pending.status).toBe(202);
    const archived = await f.call('POST', `/sessions/${sessionId}/archive`);
    expect(archived.status).toBe(200);
    expect(archived.body).toMatchObject({ id: sessionId, archivedAt: expect.any(String) });
    // A second archive changes nothing (the same time, no second event).
    expect((await f.call('POST', `/sessions/${sessionId}/archive`)).body.archivedAt).toBe(archived.body.archivedAt);
    const settled = await f.waitForRun(runId, (run) => run.state === 'cancelled');
    expect(settled.state).toBe('cancelled');
    const turns = await f.t.database.db.select().from(pendingTurns).where(eq(pendingTurns.sessionId, sessionId));
    expect(turns.map((turn) => [turn.state, turn.withdrawnReason])).toEqual([['withdrawn', 'session_archived']]);
    const kinds = (
      await f.t.database.db.select().from(productEvents).where(eq(productEvents.sessionId, sessionId)).orderBy(asc(productEvents.projectPosition))
    ).map((event) => event.kind);
    expect(kinds.filter((kind) => kind === 'session.archived')).toHaveLength(1);
    expect(kinds).toContain('session.input_withdrawn');

    const detail = await f.call('GET', `/sessions/${sessionId}`);
    expect(detail.body).toMatchObject({ archivedAt: archived.body.archivedAt, runs: [{ id: runId }] });
    const refused = await f.call('POST', `/sessions/${sessionId}/runs`, { message: 'Hello?', ifBusy: 'enqueue' });
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toContain('archived');
    const archivedOnly = await f.call('GET', '/sessions?archived=true&limit=200');
    expect(archivedOnly.body.data.map((item: { id: string }) => item.id)).toContain(sessionId);
    const live = await f.call('GET', '/sessions?archived=false&limit=200');
    expect(live.body.data.map((item: { id: string }) => item.id)).not.toContain(sessionId);
    // A fork of an archived session is a new, open conversation.
    const fork = await f.call('POST', `/sessions/${sessionId}/fork`, { fromRunId: runId });
    expect(fork.status, JSON.stringify(fork.body)).toBe(201);
    expect(fork.body).toMatchObject({ archivedAt: null, forkedFrom: { sessionId, runId } });
    // Both are pinned to the agent's version: listed by it, oldest activity first on request.
    const byVersion = async (order: string) =>
      (await f.call('GET', `/sessions?agentVersionId=${agent.latestVersionId}&order=${order}`)).body.data.map((item: { id: string }) => item.id);
    expect(await byVersion('asc')).toEqual([sessionId, fork.body.id]);
    expect(await byVersion('desc')).toEqual([fork.body.id, sessionId]);
  }, 60_000);

  it('delete cancels the active run; the session and its runs are 404 from then on', async () => {
    const { sessionId, runId } = await busySession();
    const deleted = await f.call('DELETE', `/sessions/${sessionId}`);
    expect(deleted).toMatchObject({ status: 200, body: { id: sessionId, deleted: true } });
    await expect
      .poll(async () => (await f.t.database.db.select({ state: runs.state }).from(runs).where(eq(runs.id, runId)))[0]!.state, { timeout: 30_000 })
      .toBe('cancelled');
    expect((await f.call('GET', `/sessions/${sessionId}`)).status).toBe(404);
    expect((await f.call('GET', `/runs/${runId}`)).status).toBe(404);
    expect((await f.call('DELETE', `/sessions/${sessionId}`)).status).toBe(404);
    expect((await f.call('POST', `/sessions/${sessionId}/runs`, { message: 'Hi' })).status).toBe(404);
    expect((await f.call('GET', '/sessions?limit=200')).body.data.map((item: { id: string }) => item.id)).not.toContain(sessionId);
    const events = await f.t.database.db
      .select()
      .from(productEvents)
      .where(and(eq(productEvents.sessionId, sessionId), eq(productEvents.kind, 'session.deleted')));
    expect(events).toHaveLength(1);
  }, 60_000);
});
