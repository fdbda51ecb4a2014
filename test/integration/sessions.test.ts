import { and, eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEntries, messages, modelInvocations, productEvents, runs, sessions, sessionSkillBindings, threads } from '../../db/schema/index.ts';
import { systemClock, type Actor, type ServiceContext, systemContext } from '../../services/kernel/service-context.ts';
import { transitionRun } from '../../services/runtime/runs/index.ts';
import { createSession } from '../../services/runtime/sessions/index.ts';
import { withTransaction } from '../../services/kernel/transaction.ts';
import { createProvider, errorOf } from '../fixtures/model-vendors/helpers.ts';
import { startFakeModelProviders, type FakeModelProviders } from '../fixtures/model-vendors/catalog-server.ts';
import { createTestApp, type TestApp } from '../support/app.ts';

let t: TestApp;
let fakes: FakeModelProviders;
let projectId: string;
let organizationId: string;
let principalId: string;
let admin: string;

const tool = (name: string, approval = 'never') => ({
  name,
  description: `The ${name} tool`,
  owner: 'caller',
  approval,
  inputSchema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
  outputSchema: { type: 'object', properties: { answer: { type: 'string' } } },
});
const config = (overrides: Record<string, unknown> = {}) => ({
  systemPrompt: 'You are a careful assistant for the support team.',
  modelPreset: 'fast',
  tools: [tool('lookup_order'), tool('refund_order', 'always')],
  limits: { maxTurns: 8 },
  ...overrides,
});

/** A system context for the runtime verbs (what the worker's activities pass). */
const systemCtx = (): ServiceContext => systemContext({ db: t.database.db, logger: t.deps.logger, clock: systemClock });

beforeAll(async () => {
  fakes = await startFakeModelProviders();
  t = await createTestApp({ env: fakes.env });
  const { context } = await t.login();
  projectId = context.project.id;
  organizationId = context.organization.id;
  principalId = context.principal.id;
  admin = (await t.createApiKey(['*'])).secret;
  const provider = await createProvider(t, { apiKey: admin, projectId, key: 'openai', providerType: 'vendor_a' });
  const preset = await t.request('POST', `/v1/projects/${projectId}/model-presets`, {
    apiKey: admin,
    body: { key: 'fast', displayName: 'Fast', providerId: provider.id, model: 'vendor_a/gpt-5.1', routing: {}, settings: { effort: 'low' } },
  });
  expect(preset.status, await preset.clone().text()).toBe(201);
});
afterAll(async () => {
  await t?.close();
  await fakes?.close();
});

let agentCounter = 0;
async function createAgent(overrides: Record<string, unknown> = {}) {
  const response = await t.request('POST', `/v1/projects/${projectId}/agents`, {
    apiKey: admin,
    body: { name: `Agent ${++agentCounter}`, initialConfig: config(overrides) },
  });
  expect(response.status, await response.clone().text()).toBe(201);
  return response.json();
}
async function publishVersion(agentId: string, overrides: Record<string, unknown>) {
  const response = await t.request('POST', `/v1/projects/${projectId}/agents/${agentId}/versions`, { apiKey: admin, body: { config: config(overrides) } });
  expect(response.status, await response.clone().text()).toBe(201);
  return response.json();
}
let skillCounter = 0;
async function createSkill() {
  const response = await t.request('POST', `/v1/projects/${projectId}/skills`, {
    apiKey: admin,
    body: {
      key: `skill-${++skillCounter}`,
      displayName: 'PDF tools',
      name: 'pdf-tools',
      description: 'Work with PDF files.',
      instructions: '# PDF tools\n\nSecret-ish instructions.\n',
      files: [{ path: 'guide.md', contentType: 'text/markdown', dataBase64: Buffer.from('# Guide\n').toString('base64') }],
    },
  });
  expect(response.status, await response.clone().text()).toBe(201);
  return response.json();
}

const sessionsPath = () => `/v1/projects/${projectId}/sessions`;
const postSession = (body: unknown, options: { apiKey?: string; idempotencyKey?: string } = {}) =>
  t.request('POST', sessionsPath(), { apiKey: options.apiKey ?? admin, body, ...(options.idempotencyKey ? { idempotencyKey: options.idempotencyKey } : {}) });

/** Row counts of everything session creation writes, for "all or nothing" checks. */
async function counts() {
  const db = t.database.db;
  const [th, se, me, ru, bi, ev, au] = await Promise.all([
    db.select().from(threads).where(eq(threads.projectId, projectId)),
    db.select().from(sessions).where(eq(sessions.projectId, projectId)),
    db.select().from(messages).where(eq(messages.projectId, projectId)),
    db.select().from(runs).where(eq(runs.projectId, projectId)),
    db.select().from(sessionSkillBindings).where(eq(sessionSkillBindings.projectId, projectId)),
    db
      .select()
      .from(productEvents)
      .where(and(eq(productEvents.projectId, projectId), inArray(productEvents.aggregateType, ['session', 'run', 'message']))),
    db
      .select()
      .from(auditEntries)
      .where(and(eq(auditEntries.projectId, projectId), eq(auditEntries.action, 'session.created'))),
  ]);
  return {
    threads: th.length,
    sessions: se.length,
    messages: me.length,
    runs: ru.length,
    bindings: bi.length,
    events: ev.length,
    audit: au.length,
    starts: t.runStarter.starts.length,
  };
}

describe('POST /sessions', () => {
  it('creates thread, session, bindings, message, run, events and audit in one go, then starts the run once after commit', async () => {
    const skill = await createSkill();
    const agent = await createAgent({ skillVersionIds: [skill.versions[0].id] });
    const before = await counts();
    const seenAtStart: Array<{ runVisible: boolean }> = [];
    t.runStarter.onStart = async (call) => {
      // A different connection than the request's transaction: sees only committed rows.
      const [row] = await t.database.db.select({ id: runs.id }).from(runs).where(eq(runs.id, call.runId));
      seenAtStart.push({ runVisible: Boolean(row) });
    };
    const response = await postSession({ agentId: agent.id, title: 'Order help', initialMessage: 'Where is my order 42?' }, { idempotencyKey: 'create-1' });
    t.runStarter.onStart = null;
    expect(response.status, await response.clone().text()).toBe(201);
    const session = await response.json();

    expect(session).toEqual({
      organizationId,
      projectId,
      id: expect.any(String),
      threadId: expect.any(String),
      agentId: agent.id,
      agentVersionId: agent.latestVersionId,
      title: 'Order help',
      status: 'queued',
      createdAt: expect.any(String),
      lastActivityAt: session.createdAt,
      latestRunId: session.run.id,
      archivedAt: null,
      budget: null,
      run: {
        organizationId,
        projectId,
        id: expect.any(String),
        threadId: session.threadId,
        sessionId: session.id,
        agentVersionId: agent.latestVersionId,
        createdByPrincipalId: expect.any(String),
        state: 'queued',
        inputPublic: { message: 'Where is my order 42?' },
        idempotencyKey: 'create-1',
        cancellationRequestedAt: null,
        admittedAt: null,
        settledAt: null,
        createdAt: session.createdAt,
        updatedAt: session.createdAt,
        failure: null,
        inputTokens: 0,
        outputTokens: 0,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        cost: 0,
        context: { lastInputTokens: null, window: null, compactions: 0 },
      },
    });

    // The answer was built from the rows before they were written (one statement): the stored
    // rows read back the same (no run executes here: the run starter only records its starts).
    const { run: answeredRun, ...answeredSession } = session;
    const read = async (path: string) => (await t.request('GET', `/v1/projects/${projectId}${path}`, { apiKey: admin })).json();
    expect(await read(`/sessions/${session.id}`)).toMatchObject(answeredSession);
    expect(await read(`/runs/${session.run.id}`)).toEqual(answeredRun);

    const after = await counts();
    expect(after).toEqual({
      threads: before.threads + 1,
      sessions: before.sessions + 1,
      messages: before.messages + 1,
      runs: before.runs + 1,
      bindings: before.bindings + 1,
      events: before.events + 3,
      audit: before.audit + 1,
      starts: before.starts + 1,
    });
    expect(t.runStarter.starts.at(-1)).toEqual({ runId: session.run.id, projectId, sessionId: session.id, agentId: agent.id });
    expect(seenAtStart).toEqual([{ runVisible: true }]);

    const [run] = await t.database.db.select().from(runs).where(eq(runs.id, session.run.id));
    expect(run!.wallDeadlineAt.getTime() - run!.createdAt.getTime()).toBe(48 * 60 * 60 * 1000);
    const [message] = await t.database.db.select().from(messages).where(eq(messages.runId, session.run.id));
    expect(message).toMatchObject({ role: 'user', stepKey: 'input', sequence: 1, content: { text: 'Where is my order 42?' }, threadId: session.threadId });

    const events = await t.database.db
      .select()
      .from(productEvents)
      .where(inArray(productEvents.aggregateId, [session.id, session.run.id, message!.id]));
    events.sort((a, b) => Number(a.projectPosition - b.projectPosition));
    expect(events.map((event) => [event.aggregateType, event.kind])).toEqual([
      ['session', 'session.created'],
      ['run', 'run.queued'],
      ['message', 'message.created'],
    ]);
    expect(events[0]!.publicPayload).toMatchObject({ sessionId: session.id, agentVersionId: agent.latestVersionId, status: 'queued', runId: session.run.id });
    expect(events[1]!.publicPayload).toMatchObject({ runId: session.run.id, sessionId: session.id, state: 'queued' });
    expect(events[2]!.publicPayload).toEqual({
      messageId: message!.id,
      sessionId: session.id,
      runId: session.run.id,
      threadId: session.threadId,
      role: 'user',
      sequence: 1,
    });
    // Text never travels in public payloads; the opt-in message object carries it for webhooks.
    for (const event of events) expect(JSON.stringify(event.publicPayload)).not.toContain('order 42');
    expect(events[2]!.message).toEqual({ id: message!.id, runId: session.run.id, role: 'user', content: { text: 'Where is my order 42?' } });

    const [audit] = await t.database.db
      .select()
      .from(auditEntries)
      .where(and(eq(auditEntries.action, 'session.created'), eq(auditEntries.targetId, session.id)));
    expect(audit).toMatchObject({
      principalId: session.run.createdByPrincipalId,
      targetType: 'session',
      details: { agentId: agent.id, agentVersionId: agent.latestVersionId, runId: session.run.id },
    });
    const bindings = await t.database.db.select().from(sessionSkillBindings).where(eq(sessionSkillBindings.sessionId, session.id));
    expect(bindings).toEqual([expect.objectContaining({ position: 0, skillId: skill.id, skillVersionId: skill.versions[0].id })]);
  });

  it('replays an Idempotency-Key without a second session, run or start', async () => {
    const agent = await createAgent();
    const body = { agentId: agent.id, initialMessage: 'Hello' };
    const first = await postSession(body, { idempotencyKey: 'replay-me' });
    expect(first.status).toBe(201);
    const before = await counts();
    const again = await postSession(body, { idempotencyKey: 'replay-me' });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expect(await again.json()).toEqual(await first.json());
    expect(await counts()).toEqual(before);
    const conflict = await postSession({ ...body, initialMessage: 'Other' }, { idempotencyKey: 'replay-me' });
    expect(conflict.status).toBe(409);
    expect((await errorOf(conflict)).code).toBe('idempotency_conflict');
  });

  it('resolves agentVersionId only to the latest version; older is 400, archived or unknown is 404', async () => {
    const agent = await createAgent();
    const byVersion = await postSession({ agentVersionId: agent.latestVersionId, initialMessage: 'Hi' });
    expect(byVersion.status).toBe(201);
    expect((await byVersion.json()).agentVersionId).toBe(agent.latestVersionId);

    const v2 = await publishVersion(agent.id, { systemPrompt: 'Second prompt for the support team.' });
    const byAgent = await (await postSession({ agentId: agent.id, initialMessage: 'Hi' })).json();
    expect(byAgent.agentVersionId).toBe(v2.id);
    const both = await postSession({ agentId: agent.id, agentVersionId: v2.id, initialMessage: 'Hi' });
    expect(both.status).toBe(201);

    const before = await counts();
    const older = await postSession({ agentVersionId: agent.latestVersionId, initialMessage: 'Hi' });
    expect(older.status).toBe(400);
    expect((await errorOf(older)).details).toMatchObject({ path: 'body.agentVersionId', latestVersionId: v2.id });
    const olderWithAgent = await postSession({ agentId: agent.id, agentVersionId: agent.latestVersionId, initialMessage: 'Hi' });
    expect(olderWithAgent.status).toBe(400);
    const other = await createAgent();
    const mismatched = await postSession({ agentId: agent.id, agentVersionId: other.latestVersionId, initialMessage: 'Hi' });
    expect(mismatched.status).toBe(400);
    const unknown = await postSession({ agentVersionId: '00000000-0000-4000-8000-000000000000', initialMessage: 'Hi' });
    expect(unknown.status).toBe(404);

    expect((await t.request('DELETE', `/v1/projects/${projectId}/agents/${other.id}`, { apiKey: admin })).status).toBe(200);
    expect((await postSession({ agentId: other.id, initialMessage: 'Hi' })).status).toBe(404);
    expect((await postSession({ agentVersionId: other.latestVersionId, initialMessage: 'Hi' })).status).toBe(404);
    expect(await counts()).toEqual(before);
  });

  it("changes a session's title: PATCH answers the session, session.updated names what changed, the same title writes nothing", async () => {
    const agent = await createAgent();
    const created = await (await postSession({ agentId: agent.id, title: 'Before' })).json();
    const patch = (body: unknown, apiKey = admin) => t.request('PATCH', `/v1/projects/${projectId}/sessions/${created.id}`, { apiKey, body });
    const renamed = await patch({ title: 'After' });
    expect(renamed.status).toBe(200);
    expect(await renamed.json()).toMatchObject({ id: created.id, title: 'After', status: 'idle', forkedFrom: null });
    const events = await t.database.db
      .select()
      .from(productEvents)
      .where(and(eq(productEvents.aggregateId, created.id), eq(productEvents.kind, 'session.updated')));
    expect(events.map((event) => event.publicPayload)).toEqual([{ sessionId: created.id, changed: ['title'] }]);
    expect((await patch({ title: 'After' })).status).toBe(200);
    expect((await patch({ title: null })).status).toBe(200);
    expect(
      (await t.request('GET', `/v1/projects/${projectId}/sessions/${created.id}`, { apiKey: admin }).then((response) => response.json())).title,
    ).toBeNull();
    expect(
      await t.database.db
        .select()
        .from(productEvents)
        .where(and(eq(productEvents.aggregateId, created.id), eq(productEvents.kind, 'session.updated'))),
    ).toHaveLength(2);
    expect((await patch({ title: 'x'.repeat(201) })).status).toBe(400);
    expect((await patch({ agentId: agent.id })).status).toBe(400);
    const reader = (await t.createApiKey(['session:read'])).secret;
    expect((await patch({ title: 'Nope' }, reader)).status).toBe(403);
  });

  it('pins an older version when asked with anyVersion: true', async () => {
    const agent = await createAgent();
    const v1 = agent.latestVersionId as string;
    await publishVersion(agent.id, { systemPrompt: 'Second prompt for the support team.' });
    const pinned = await postSession({ agentVersionId: v1, anyVersion: true });
    expect(pinned.status).toBe(201);
    expect(await pinned.json()).toMatchObject({ agentVersionId: v1, status: 'idle', run: null });
    const withAgent = await postSession({ agentId: agent.id, agentVersionId: v1, anyVersion: true, initialMessage: 'Hi' });
    expect(withAgent.status).toBe(201);
    expect((await withAgent.json()).run.agentVersionId).toBe(v1);
    const before = await counts();
    const noVersion = await postSession({ agentId: agent.id, anyVersion: true });
    expect(noVersion.status).toBe(400);
    expect((await errorOf(noVersion)).details).toMatchObject({ path: 'body.anyVersion' });
    const other = await createAgent();
    expect((await postSession({ agentId: agent.id, agentVersionId: other.latestVersionId, anyVersion: true })).status).toBe(404);
    expect(await counts()).toEqual(before);
  });

  it('refuses bad bodies with 400 and writes nothing', async () => {
    const agent = await createAgent();
    const before = await counts();
    const cases: Array<[unknown, string]> = [
      [{ initialMessage: 'Hi' }, 'body'],
      [{ agentId: agent.id, initialMessage: '' }, 'body.initialMessage'],
      [{ agentId: agent.id, initialMessage: '   ' }, 'body.initialMessage'],
      [{ agentId: agent.id, initialMessage: 'x'.repeat(100_001) }, 'body.initialMessage'],
      [{ agentId: agent.id, initialMessage: 'Hi', files: [{ name: 'a.txt', contentType: 'text/plain', dataBase64: 'YQ==' }] }, 'body.files'],
      [{ agentId: agent.id, initialMessage: 'Hi', skillVersionIds: [] }, 'body.skillVersionIds'],
      [{ agentId: 'not-a-uuid', initialMessage: 'Hi' }, 'body.agentId'],
      [{ agentId: agent.id, initialMessage: 'Hi', title: 'x'.repeat(201) }, 'body.title'],
    ];
    for (const [body, path] of cases) {
      const response = await postSession(body);
      expect(response.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      const error = await errorOf(response);
      expect(error.code).toBe('bad_request');
      expect(error.details.path).toBe(path);
    }
    const files = await postSession({ agentId: agent.id, files: [{ name: 'a.txt', contentType: 'text/plain', dataBase64: 'YQ==' }] });
    expect((await errorOf(files)).message).toMatch(/sandbox/);
    expect(await counts()).toEqual(before);
    const longest = await postSession({ agentId: agent.id, initialMessage: 'x'.repeat(100_000), files: [] });
    expect(longest.status).toBe(201);
  });

  it('a transaction that rolls back after creating the session writes nothing and starts nothing', async () => {
    const agent = await createAgent();
    const before = await counts();
    const actor: Actor = {
      principalId,
      organizationId,
      projectId,
      kind: 'human',
      subject: 'test',
      scopes: ['*'],
      displayName: null,
      organizationRole: null,
      projectRole: null,
      apiKeyId: null,
    };
    const ctx: ServiceContext = { ...systemCtx(), actor };
    await expect(
      withTransaction(ctx, async (tx) => {
        await createSession({
          ctx: tx,
          deps: { runStarter: t.runStarter, keyring: t.deps.keyring },
          input: { agentId: agent.id, initialMessage: 'Hi', idempotencyKey: null },
        });
        throw new Error('boom after the session was written');
      }),
    ).rejects.toThrow('boom');
    expect(await counts()).toEqual(before);
  });

  it('needs session:write and run:create', async () => {
    const agent = await createAgent();
    const writeOnly = (await t.createApiKey(['session:write'])).secret;
    const runOnly = (await t.createApiKey(['run:create'])).secret;
    const both = (await t.createApiKey(['session:write', 'run:create'])).secret;
    const body = { agentId: agent.id, initialMessage: 'Hi' };
    const denied = await postSession(body, { apiKey: writeOnly });
    expect(denied.status).toBe(403);
    expect((await errorOf(denied)).message).toContain('run:create');
    expect((await postSession(body, { apiKey: runOnly })).status).toBe(403);
    expect((await postSession(body, { apiKey: both })).status).toBe(201);
    expect((await t.request('GET', sessionsPath(), { apiKey: both })).status).toBe(403);
  });
});

describe('GET /sessions', () => {
  it('lists newest activity first with filters and keyset paging', async () => {
    const agent = await createAgent();
    const created = [];
    for (const text of ['one', 'two', 'three']) created.push(await (await postSession({ agentId: agent.id, initialMessage: text })).json());
    const reader = (await t.createApiKey(['session:read'])).secret;
    const list = (query: string) => t.request('GET', `${sessionsPath()}?${query}`, { apiKey: reader });

    const page1 = await (await list(`agentId=${agent.id}&limit=2`)).json();
    expect(page1.data.map((s: { id: string }) => s.id)).toEqual([created[2].id, created[1].id]);
    expect(page1.data[0]).toEqual({
      ...created[2],
      run: undefined,
      parentSessionId: null,
      delegateKey: null,
      inputTokens: 0,
      outputTokens: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      cost: 0,
      forkedFrom: null,
    });
    expect(page1.data[0]).not.toHaveProperty('run');
    const page2 = await (await list(`agentId=${agent.id}&limit=2&cursor=${page1.pageInfo.nextCursor}`)).json();
    expect(page2.data.map((s: { id: string }) => s.id)).toEqual([created[0].id]);
    expect(page2.pageInfo.nextCursor).toBeNull();

    // New activity moves a session to the front.
    await transitionRun({ ctx: systemCtx(), input: { runId: created[0].run.id, to: 'running' } });
    const moved = await (await list(`agentId=${agent.id}&limit=1`)).json();
    expect(moved.data[0]).toMatchObject({ id: created[0].id, status: 'running' });
    const running = await (await list(`agentId=${agent.id}&status=running`)).json();
    expect(running.data.map((s: { id: string }) => s.id)).toEqual([created[0].id]);
    const roots = await (await list(`agentId=${agent.id}&root=true`)).json();
    expect(roots.data).toHaveLength(3);
    const children = await (await list(`parentSessionId=${created[0].id}`)).json();
    expect(children.data).toEqual([]);

    for (const bad of ['status=sleeping', 'root=yes', `root=true&parentSessionId=${created[0].id}`, 'cursor=nope', 'limit=0', 'agentId=x']) {
      const response = await list(bad);
      expect(response.status, bad).toBe(400);
    }
  });
});

describe('GET /sessions/{id}', () => {
  it('returns runs, transcript, timeline, pending work, debug, skills and tools of the pinned version', async () => {
    const skill = await createSkill();
    const agent = await createAgent({ skillVersionIds: [skill.versions[0].id] });
    const created = await (await postSession({ agentId: agent.id, initialMessage: 'Find order 7' })).json();
    // A model call with usage, as the runtime records it (services/runtime/model-invocations).
    await transitionRun({ ctx: systemCtx(), input: { runId: created.run.id, to: 'running' } });
    const startedAt = new Date();
    const [invocation] = await t.database.db
      .insert(modelInvocations)
      .values({
        organizationId,
        projectId,
        runId: created.run.id,
        turnId: 'turn-1',
        attempt: 1,
        status: 'succeeded',
        inputTokens: 120,
        outputTokens: 30,
        cacheReadTokens: 5,
        finishReason: 'stop',
        thinking: 'thinking text',
        startedAt,
        completedAt: new Date(startedAt.getTime() + 250),
      })
      .returning();
    await t.database.db.update(sessions).set({ inputTokens: 120, outputTokens: 30, cacheReadTokens: 5 }).where(eq(sessions.id, created.id));

    // Later changes never reach the session: a new Skill version and a new agent version.
    const skill2 = await t.request('POST', `/v1/projects/${projectId}/skills/${skill.id}/versions`, {
      apiKey: admin,
      body: { name: 'pdf-tools', description: 'Version two.', instructions: 'v2', files: [] },
    });
    expect(skill2.status, await skill2.clone().text()).toBe(201);
    const v2 = await publishVersion(agent.id, { tools: [tool('something_else')], skillVersionIds: [(await skill2.json()).id] });
    expect(v2.version).toBe(2);

    const reader = (await t.createApiKey(['session:read'])).secret;
    const response = await t.request('GET', `${sessionsPath()}/${created.id}`, { apiKey: reader });
    expect(response.status).toBe(200);
    const detail = await response.json();
    expect(detail).toMatchObject({
      id: created.id,
      agentVersionId: agent.latestVersionId,
      status: 'running',
      inputTokens: 120,
      outputTokens: 30,
      cacheReadTokens: 5,
      cacheWriteTokens: 0,
    });
    expect(detail.runs).toEqual([expect.objectContaining({ id: created.run.id, state: 'running', admittedAt: expect.any(String) })]);
    expect(detail.transcript).toEqual([
      {
        id: expect.any(String),
        threadId: created.threadId,
        runId: created.run.id,
        sequence: 1,
        role: 'user',
        text: 'Find order 7',
        toolCalls: [],
        toolResult: null,
        attachments: [],
        createdAt: expect.any(String),
      },
    ]);
    expect(detail.timeline.map((entry: { entrySequence: number; kind: string }) => [entry.entrySequence, entry.kind])).toEqual([
      [1, 'queue'],
      [2, 'execution'],
      [3, 'model_invocation'],
    ]);
    expect(detail.timeline[2]).toMatchObject({
      runId: created.run.id,
      modelInvocationId: invocation!.id,
      turnId: 'turn-1',
      attempt: 1,
      status: 'succeeded',
      finishReason: 'stop',
      durationMs: 250,
    });
    expect(detail.pendingWork).toEqual({ toolCalls: [], approvals: [] });
    expect(detail.debug.productEvents.map((event: { kind: string }) => event.kind)).toEqual([
      'session.created',
      'run.queued',
      'message.created',
      'run.running',
    ]);
    expect(JSON.stringify(detail.debug.productEvents)).not.toContain('Find order 7');
    expect(detail.debug.modelInvocations).toEqual([
      expect.objectContaining({ id: invocation!.id, inputTokens: 120, outputTokens: 30, cacheReadTokens: 5, status: 'succeeded', thinking: 'thinking text' }),
    ]);
    expect(detail.debug).toMatchObject({ toolCalls: [], approvals: [], sandboxes: [], workspaceBackups: [], sandboxCommands: [] });
    expect(detail.skills).toEqual([
      {
        skillId: skill.id,
        skillVersionId: skill.versions[0].id,
        version: 1,
        name: 'pdf-tools',
        description: 'Work with PDF files.',
        contentHash: skill.versions[0].contentHash,
        status: 'active',
      },
    ]);
    expect(JSON.stringify(detail.skills)).not.toContain('instructions');
    expect(detail.tools).toEqual([
      { name: 'lookup_order', description: 'The lookup_order tool', owner: 'caller', approval: 'never' },
      { name: 'refund_order', description: 'The refund_order tool', owner: 'caller', approval: 'always' },
    ]);
    expect(detail.delegations).toEqual([]);
  });

  it('is 404 for an unknown session and 400 for a malformed id', async () => {
    expect((await t.request('GET', `${sessionsPath()}/00000000-0000-4000-8000-000000000000`, { apiKey: admin })).status).toBe(404);
    expect((await t.request('GET', `${sessionsPath()}/nope`, { apiKey: admin })).status).toBe(400);
  });
});
