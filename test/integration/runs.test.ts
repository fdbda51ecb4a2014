import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEntries, modelInvocations, productEvents, runs, sessions } from '../../db/schema/index.ts';
import { ConflictError } from '../../domain/errors.ts';
import { systemClock, type ServiceContext, systemContext } from '../../services/kernel/service-context.ts';
import { appendRunMessage } from '../../services/runtime/runs/index.ts';
import { loadRunContext } from '../../services/runtime/runs/index.ts';
import { readThreadContext } from '../../services/runtime/compaction/index.ts';
import { loadTurnContext } from '../../services/runtime/model-turns/index.ts';
import { transitionRun } from '../../services/runtime/runs/index.ts';
import { createProvider, errorOf } from '../fixtures/model-vendors/helpers.ts';
import { startFakeModelProviders, type FakeModelProviders } from '../fixtures/model-vendors/catalog-server.ts';
import { createTestApp, type TestApp } from '../support/app.ts';

let t: TestApp;
let fakes: FakeModelProviders;
let projectId: string;
let admin: string;
let agent: { id: string; latestVersionId: string };

const config = (overrides: Record<string, unknown> = {}) => ({
  systemPrompt: 'You are a careful assistant for the support team.',
  modelPreset: 'fast',
  tools: [],
  limits: { maxTurns: 8 },
  ...overrides,
});

const systemCtx = (): ServiceContext => systemContext({ db: t.database.db, logger: t.deps.logger, clock: systemClock });

beforeAll(async () => {
  fakes = await startFakeModelProviders();
  t = await createTestApp({ env: fakes.env });
  projectId = (await t.login()).context.project.id;
  admin = (await t.createApiKey(['*'])).secret;
  const provider = await createProvider(t, { apiKey: admin, projectId, key: 'openai', providerType: 'vendor_a' });
  const preset = await t.request('POST', `/v1/projects/${projectId}/model-presets`, {
    apiKey: admin,
    body: { key: 'fast', displayName: 'Fast', providerId: provider.id, model: 'vendor_a/gpt-5.1', routing: {}, settings: { effort: 'low' } },
  });
  expect(preset.status).toBe(201);
  const created = await t.request('POST', `/v1/projects/${projectId}/agents`, { apiKey: admin, body: { name: 'Runner', initialConfig: config() } });
  expect(created.status).toBe(201);
  agent = await created.json();
});
afterAll(async () => {
  await t?.close();
  await fakes?.close();
});

const p = (path: string) => `/v1/projects/${projectId}${path}`;
async function newSession(text = 'Hello') {
  const response = await t.request('POST', p('/sessions'), { apiKey: admin, body: { agentId: agent.id, initialMessage: text } });
  expect(response.status, await response.clone().text()).toBe(201);
  return response.json();
}
const followUp = (sessionId: string, body: unknown, apiKey = admin) => t.request('POST', p(`/sessions/${sessionId}/runs`), { apiKey, body });
const settle = async (runId: string, to: 'completed' | 'failed' | 'cancelled' = 'completed') => {
  await transitionRun({ ctx: systemCtx(), input: { runId, to: 'running' } });
  return transitionRun({ ctx: systemCtx(), input: { runId, to } });
};
const runEvents = async (runId: string) =>
  (
    await t.database.db
      .select()
      .from(productEvents)
      .where(and(eq(productEvents.aggregateType, 'run'), eq(productEvents.aggregateId, runId)))
  ).sort((a, b) => a.aggregateSequence - b.aggregateSequence);

describe('follow-up runs', () => {
  it('409 while the latest run is unsettled; 202 with the new run once it settled', async () => {
    const session = await newSession();
    const early = await followUp(session.id, { message: 'More' });
    expect(early.status).toBe(409);
    expect((await errorOf(early)).code).toBe('conflict');
    await transitionRun({ ctx: systemCtx(), input: { runId: session.run.id, to: 'running' } });
    expect((await followUp(session.id, { message: 'More' })).status).toBe(409);
    await transitionRun({ ctx: systemCtx(), input: { runId: session.run.id, to: 'completed' } });

    // A newer agent version never upgrades the session.
    const v2 = await t.request('POST', p(`/agents/${agent.id}/versions`), {
      apiKey: admin,
      body: { config: config({ systemPrompt: `Newer prompt ${Date.now()}` }) },
    });
    expect(v2.status).toBe(201);

    const starts = t.runStarter.starts.length;
    const response = await followUp(session.id, { message: 'And the invoice?' });
    expect(response.status).toBe(202);
    const run = await response.json();
    expect(run).toMatchObject({
      sessionId: session.id,
      threadId: session.threadId,
      agentVersionId: session.agentVersionId,
      state: 'queued',
      inputPublic: { message: 'And the invoice?' },
      admittedAt: null,
      settledAt: null,
      failure: null,
    });
    expect(run.idempotencyKey).toEqual(expect.any(String));
    expect(t.runStarter.starts.slice(starts)).toEqual([{ runId: run.id, projectId, sessionId: session.id, agentId: agent.id }]);
    const [row] = await t.database.db.select().from(sessions).where(eq(sessions.id, session.id));
    expect(row).toMatchObject({ status: 'queued', latestRunId: run.id });
    expect(row!.lastActivityAt.toISOString()).toBe(run.createdAt);
    const context = await loadRunContext(t.database.db, run.id);
    expect(context.messages.map((m) => [m.sequence, m.role, m.runId])).toEqual([
      [1, 'user', session.run.id],
      [2, 'user', run.id],
    ]);
    expect(context.agentVersion.id).toBe(session.agentVersionId);
    const [audit] = await t.database.db
      .select()
      .from(auditEntries)
      .where(and(eq(auditEntries.action, 'run.created'), eq(auditEntries.targetId, run.id)));
    expect(audit?.details).toMatchObject({ sessionId: session.id, via: 'follow_up' });
  });

  it('takes message or its alias redactedInput, exactly one, up to 100,000 characters', async () => {
    const session = await newSession();
    await settle(session.run.id);
    const cases: Array<[unknown, string]> = [
      [{}, 'body.message'],
      [{ message: 'a', redactedInput: 'b' }, 'body'],
      [{ message: 'x'.repeat(100_001) }, 'body.message'],
      [{ message: 'Hi', files: [{ name: 'a.txt' }] }, 'body.files.0.contentType'],
      [{ message: 'Hi', extra: true }, 'body.extra'],
    ];
    for (const [body, path] of cases) {
      const response = await followUp(session.id, body);
      expect(response.status, JSON.stringify(body).slice(0, 60)).toBe(400);
      expect((await errorOf(response)).details.path).toBe(path);
    }
    const alias = await followUp(session.id, { redactedInput: 'Via the alias' });
    expect(alias.status).toBe(202);
    expect((await alias.json()).inputPublic).toEqual({ message: 'Via the alias' });
    expect((await followUp('00000000-0000-4000-8000-000000000000', { message: 'x' })).status).toBe(404);
  });

  it('of two concurrent follow-ups, one queues and the other conflicts', async () => {
    const session = await newSession();
    await settle(session.run.id);
    const responses = await Promise.all([followUp(session.id, { message: 'A' }), followUp(session.id, { message: 'B' })]);
    expect(responses.map((r) => r.status).sort()).toEqual([202, 409]);
    const all = await t.database.db.select().from(runs).where(eq(runs.sessionId, session.id));
    expect(all).toHaveLength(2);
  });
});

describe('resume', () => {
  it('only for a settled run, and only while the session is idle; creates a new run on that session', async () => {
    const session = await newSession();
    const resume = (runId: string, body: unknown = { message: 'Try again' }) => t.request('POST', p(`/runs/${runId}/resume`), { apiKey: admin, body });
    expect((await resume(session.run.id)).status).toBe(409);
    await settle(session.run.id, 'failed');
    const response = await resume(session.run.id);
    expect(response.status).toBe(202);
    const resumed = await response.json();
    expect(resumed).toMatchObject({ sessionId: session.id, state: 'queued', inputPublic: { message: 'Try again' } });
    expect(resumed.id).not.toBe(session.run.id);
    expect((await runEvents(resumed.id))[0]!.publicPayload).toMatchObject({ state: 'queued', resumedFromRunId: session.run.id });
    // The original run is settled but the session's latest run is not.
    const busy = await resume(session.run.id);
    expect(busy.status).toBe(409);
    expect((await errorOf(busy)).details).toMatchObject({ latestRunId: resumed.id });
    expect((await resume(session.run.id, { message: '' })).status).toBe(400);
    expect((await resume('00000000-0000-4000-8000-000000000000')).status).toBe(404);
  });
});

describe('cancel', () => {
  it('records the first request time once, signals after commit, and leaves settled runs unchanged', async () => {
    const session = await newSession();
    const cancel = (runId: string, apiKey = admin) => t.request('POST', p(`/runs/${runId}/cancel`), { apiKey });
    const cancellations = t.runStarter.cancellations.length;
    const first = await cancel(session.run.id);
    expect(first.status).toBe(202);
    const run = await first.json();
    expect(run).toMatchObject({ id: session.run.id, state: 'queued', cancellationRequestedAt: expect.any(String) });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const again = await (await cancel(session.run.id)).json();
    expect(again.cancellationRequestedAt).toBe(run.cancellationRequestedAt);
    expect(t.runStarter.cancellations.slice(cancellations)).toEqual([session.run.id, session.run.id]);
    const kinds = (await runEvents(session.run.id)).map((event) => event.kind);
    expect(kinds).toEqual(['run.queued', 'run.cancellation_requested']);

    // The runtime settles it; the public object then carries the default failure.
    await transitionRun({ ctx: systemCtx(), input: { runId: session.run.id, to: 'cancelled' } });
    const settled = await (await t.request('GET', p(`/runs/${session.run.id}`), { apiKey: admin })).json();
    expect(settled).toMatchObject({
      state: 'cancelled',
      settledAt: expect.any(String),
      admittedAt: null,
      failure: { errorCode: 'run_cancelled', errorExplanation: expect.any(String) },
    });
    const later = await cancel(session.run.id);
    expect(later.status).toBe(202);
    expect(await later.json()).toEqual(settled);

    const other = await newSession();
    await settle(other.run.id);
    const untouched = await (await cancel(other.run.id)).json();
    expect(untouched).toMatchObject({ state: 'completed', cancellationRequestedAt: null });
    expect(t.runStarter.cancellations.slice(cancellations)).toEqual([session.run.id, session.run.id]);
  });

  it('needs run:cancel', async () => {
    const session = await newSession();
    const creator = (await t.createApiKey(['run:create', 'run:read'])).secret;
    const denied = await t.request('POST', p(`/runs/${session.run.id}/cancel`), { apiKey: creator });
    expect(denied.status).toBe(403);
    expect((await errorOf(denied)).message).toContain('run:cancel');
    const canceller = (await t.createApiKey(['run:cancel'])).secret;
    expect((await t.request('POST', p(`/runs/${session.run.id}/cancel`), { apiKey: canceller })).status).toBe(202);
    expect((await t.request('GET', p(`/runs/${session.run.id}`), { apiKey: canceller })).status).toBe(403);
  });
});

describe('runtime verbs', () => {
  it('transitionRun sets admittedAt once and settledAt, mirrors the session, and is idempotent on repeats', async () => {
    const session = await newSession();
    const running = await transitionRun({ ctx: systemCtx(), input: { runId: session.run.id, to: 'running' } });
    expect(running.admittedAt).toBeInstanceOf(Date);
    const repeat = await transitionRun({ ctx: systemCtx(), input: { runId: session.run.id, to: 'running' } });
    expect(repeat.updatedAt).toEqual(running.updatedAt);
    await transitionRun({ ctx: systemCtx(), input: { runId: session.run.id, to: 'waiting_for_tool' } });
    const back = await transitionRun({ ctx: systemCtx(), input: { runId: session.run.id, to: 'running' } });
    expect(back.admittedAt).toEqual(running.admittedAt);
    const failed = await transitionRun({
      ctx: systemCtx(),
      input: { runId: session.run.id, to: 'failed', failure: { errorCode: 'model_turn_limit_exceeded', errorExplanation: 'The run used all 8 model turns.' } },
    });
    expect(failed.settledAt).toBeInstanceOf(Date);
    await expect(transitionRun({ ctx: systemCtx(), input: { runId: session.run.id, to: 'completed' } })).rejects.toBeInstanceOf(ConflictError);
    await expect(transitionRun({ ctx: systemCtx(), input: { runId: session.run.id, to: 'failed' } })).resolves.toMatchObject({ state: 'failed' });

    const kinds = (await runEvents(session.run.id)).map((event) => event.kind);
    expect(kinds).toEqual(['run.queued', 'run.running', 'run.waiting_for_tool', 'run.running', 'run.failed']);
    const [row] = await t.database.db.select().from(sessions).where(eq(sessions.id, session.id));
    expect(row!.status).toBe('failed');
    const publicRun = await (await t.request('GET', p(`/runs/${session.run.id}`), { apiKey: admin })).json();
    expect(publicRun.failure).toEqual({ errorCode: 'model_turn_limit_exceeded', errorExplanation: 'The run used all 8 model turns.' });
  });

  it('appendRunMessage is idempotent per step; run messages page by sequence with tool details redacted', async () => {
    const session = await newSession('Look up order 9');
    const runId = session.run.id;
    await transitionRun({ ctx: systemCtx(), input: { runId, to: 'running' } });
    const call = await appendRunMessage(systemCtx(), {
      runId,
      stepKey: 'turn-1',
      role: 'assistant',
      content: {
        text: 'Let me check.',
        toolCalls: [{ id: 'call_1', name: 'lookup_order', arguments: { orderId: 'SECRET-ARG' }, argumentsText: '{"orderId":"SECRET-ARG"}' }],
      },
    });
    const repeat = await appendRunMessage(systemCtx(), { runId, stepKey: 'turn-1', role: 'assistant', content: { text: 'different', toolCalls: [] } });
    expect(repeat).toEqual(call);
    await appendRunMessage(systemCtx(), {
      runId,
      stepKey: 'tool-call_1',
      role: 'tool',
      content: { toolCallId: 'call_1', toolName: 'lookup_order', result: { status: 'SECRET-RESULT' }, isError: false },
    });
    await appendRunMessage(systemCtx(), { runId, stepKey: 'turn-2', role: 'assistant', content: { text: 'Order 9 shipped.', toolCalls: [] } });
    await expect(appendRunMessage(systemCtx(), { runId, stepKey: 'bad', role: 'tool', content: { text: 'no ids' } })).rejects.toThrow(/tool message content/);

    const reader = (await t.createApiKey(['run:read'])).secret;
    const page = (cursor?: string) => t.request('GET', p(`/runs/${runId}/messages?limit=2${cursor ? `&cursor=${cursor}` : ''}`), { apiKey: reader });
    const first = await (await page()).json();
    expect(first.data.map((m: { sequence: number; role: string }) => [m.sequence, m.role])).toEqual([
      [1, 'user'],
      [2, 'assistant'],
    ]);
    expect(first.data[1]).toMatchObject({ text: null, toolCalls: [{ toolCallId: 'call_1', toolName: 'lookup_order' }], toolResult: null });
    const second = await (await page(first.pageInfo.nextCursor)).json();
    expect(second.data.map((m: { sequence: number }) => m.sequence)).toEqual([3, 4]);
    expect(second.data[0]).toMatchObject({ role: 'tool', text: null, toolResult: { toolCallId: 'call_1', toolName: 'lookup_order', isError: false } });
    expect(second.data[1]).toMatchObject({ role: 'assistant', text: 'Order 9 shipped.', toolCalls: [] });
    expect(second.pageInfo.nextCursor).toBeNull();
    expect(JSON.stringify([first, second])).not.toContain('SECRET');
    expect((await page('garbage')).status).toBe(400);

    // Events: ids, role and sequence only; the final reply is the only assistant content offered to opted-in consumers.
    const messageEvents = await t.database.db
      .select()
      .from(productEvents)
      .where(and(eq(productEvents.projectId, projectId), eq(productEvents.kind, 'message.created')));
    const ofRun = messageEvents.filter((event) => event.publicPayload.runId === runId);
    expect(ofRun).toHaveLength(4);
    expect(JSON.stringify(ofRun.map((event) => [event.publicPayload, event.message]))).not.toContain('SECRET');
    expect(
      ofRun
        .filter((event) => event.message)
        .map((event) => (event.message as { content: { text: string } }).content.text)
        .sort(),
    ).toEqual(['Look up order 9', 'Order 9 shipped.']);
    const context = await loadRunContext(t.database.db, runId);
    expect(context.messages.map((m) => m.stepKey)).toEqual(['input', 'turn-1', 'tool-call_1', 'turn-2']);
    expect(context.messages[1]!.content).toMatchObject({ toolCalls: [{ arguments: { orderId: 'SECRET-ARG' } }] });
    // A model turn reads all of it in one statement (model-turns/turn-context.ts): the same rows.
    const turn = await loadTurnContext(t.database.db, runId);
    expect(turn.context).toEqual(context);
    expect(turn.thread).toEqual(await readThreadContext(t.database.db, { runId }));
  });

  it('the run timeline pages by entrySequence over the run phases and model invocations', async () => {
    const session = await newSession();
    const runId = session.run.id;
    await transitionRun({ ctx: systemCtx(), input: { runId, to: 'running' } });
    const start = Date.now();
    const attempt = (n: number, status: 'failed' | 'succeeded') => ({
      organizationId: session.organizationId,
      projectId,
      runId,
      turnId: 'turn-1',
      attempt: n,
      status,
      errorCode: status === 'failed' ? 'provider_unavailable' : null,
      startedAt: new Date(start + n * 1000),
      completedAt: new Date(start + n * 1000 + 500),
    });
    // Inserted out of start order: the timeline orders by start time.
    await t.database.db.insert(modelInvocations).values([attempt(2, 'succeeded'), attempt(1, 'failed')]);
    await settle(runId);

    const reader = (await t.createApiKey(['run:read'])).secret;
    const timeline = (query: string) => t.request('GET', p(`/runs/${runId}/timeline?${query}`), { apiKey: reader });
    const first = await (await timeline('limit=2')).json();
    expect(first.data.map((e: { entrySequence: number; kind: string }) => [e.entrySequence, e.kind])).toEqual([
      [1, 'queue'],
      [2, 'execution'],
    ]);
    expect(first.data[1]).toMatchObject({ status: 'completed', durationMs: expect.any(Number), completedAt: expect.any(String) });
    expect(first.pageInfo.nextCursor).toBe('2');
    const rest = await (await timeline(`limit=2&cursor=${first.pageInfo.nextCursor}`)).json();
    expect(
      rest.data.map((e: { entrySequence: number; attempt: number; status: string; errorCode: string | null }) => [
        e.entrySequence,
        e.attempt,
        e.status,
        e.errorCode,
      ]),
    ).toEqual([
      [3, 1, 'failed', 'provider_unavailable'],
      [4, 2, 'succeeded', null],
    ]);
    expect(rest.data[0].durationMs).toBe(500);
    expect(rest.pageInfo.nextCursor).toBeNull();
    const all = await (await timeline('')).json();
    expect(all.data).toHaveLength(4);
    for (const bad of ['cursor=abc', 'cursor=-1', 'limit=201']) expect((await timeline(bad)).status, bad).toBe(400);
  });
});

describe('reads', () => {
  it('GET /runs/{id}, pending work, and 404s', async () => {
    const session = await newSession();
    const reader = (await t.createApiKey(['run:read'])).secret;
    const run = await (await t.request('GET', p(`/runs/${session.run.id}`), { apiKey: reader })).json();
    expect(run).toEqual(session.run);
    expect((await t.request('GET', p('/runs/00000000-0000-4000-8000-000000000000'), { apiKey: reader })).status).toBe(404);
    expect((await t.request('GET', p('/runs/00000000-0000-4000-8000-000000000000/messages'), { apiKey: reader })).status).toBe(404);
    expect((await t.request('GET', p('/runs/00000000-0000-4000-8000-000000000000/timeline'), { apiKey: reader })).status).toBe(404);
    const pending = await t.request('GET', p('/pending-work'), { apiKey: reader });
    expect(pending.status).toBe(200);
    expect(await pending.json()).toEqual({ toolCalls: [], approvals: [] });
    expect((await t.request('GET', p('/pending-work'), { apiKey: (await t.createApiKey(['session:read'])).secret })).status).toBe(403);
  });
});
