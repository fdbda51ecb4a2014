import { randomBytes, randomUUID } from 'node:crypto';
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { and, count, eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  aggregateEventCounters,
  approvals,
  attachments,
  delegations,
  eventWebhooks,
  messages,
  modelInvocations,
  organizations,
  productEvents,
  projects,
  retentionObjectDeletions,
  runs,
  sandboxCommands,
  sandboxes,
  sessions,
  threads,
  toolCalls,
  workspaceBackups,
} from '../../db/schema/index.ts';
import { tenantRoot } from '../../domain/storage/paths.ts';
import { newRetentionSweepState, runRetentionTick, type RetentionTickResult } from '../../processes/retention-sweeper.ts';
import { systemContext } from '../../services/kernel/service-context.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { takeSseFrames } from '../support/sse-frames.ts';
import { objectExists as objectExistsIn } from '../support/s3-objects.ts';

/**
 * Retention (issue 34 part 4, docs/decisions/retention-settings.md), with a one-minute installation
 * window for sessions (events kept for good unless a project says otherwise) and a clock the test
 * moves forward: expired sessions go with every row and object they own, recent and live ones
 * stay, a run in flight is never touched however old, a project's override wins over the
 * installation's window, the feed refuses a cursor older than the kept events, an enabled
 * webhook holds the events it has not delivered, a deleted project's objects are swept, and the
 * purge works in bounded batches. The object store is real (moto); no worker runs: runs stay
 * where the test puts them.
 */

let offsetMs = 0;
const clock = { now: () => new Date(Date.now() + offsetMs) };
const advance = (minutes: number) => {
  offsetMs += minutes * 60_000;
};

let t: TestApp;
let s3: S3Client;
let admin: string;
let organizationId: string;
let mainProject: string;
let sandboxProviderId: string;
let snapshotId: string;
let storageProviderId: string;
let providerId: string;
const bucket = `svc-retention-${randomUUID().slice(0, 8)}`;
const INSTALLATION = { sessionsMinutes: 1, eventsMinutes: null, batchSize: 200 };

const systemCtx = () => systemContext({ db: t.database.db, logger: t.deps.logger, clock });
const storeDeps = () => ({ keyring: t.deps.keyring, storagePolicy: t.deps.storagePolicy });
const b64 = (text: string) => Buffer.from(text).toString('base64');

/** Ticks until the sweep reports nothing left; returns each tick's result. */
async function sweepAll(
  settings: { sessionsMinutes: number | null; eventsMinutes: number | null; batchSize: number } = INSTALLATION,
): Promise<RetentionTickResult[]> {
  const state = newRetentionSweepState();
  const ticks: RetentionTickResult[] = [];
  for (let i = 0; i < 50; i++) {
    const tick = await runRetentionTick(systemCtx(), storeDeps(), settings, state);
    ticks.push(tick);
    if (!tick.more) return ticks;
  }
  throw new Error('the sweep never finished');
}

async function call(projectId: string, method: string, urlPath: string, body?: unknown, options: { headers?: Record<string, string> } = {}) {
  const response = await t.request(method, `/v1/projects/${projectId}${urlPath}`, { apiKey: admin, body, ...options });
  const text = await response.text();
  let json: any = null;
  try {
    json = JSON.parse(text);
  } catch {
    json = null;
  }
  return { status: response.status, body: json, text };
}

const objectExists = (key: string) => objectExistsIn(s3, bucket, key);

const putObject = (key: string, text: string) => s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: text }));

/** A project with a plain agent (preset `p` through the organization's gateway provider); its id and the agent's. */
async function projectWithAgent(slug: string): Promise<{ projectId: string; agentId: string }> {
  const created = await t.request('POST', '/v1/projects', { apiKey: admin, body: { slug: `${slug}-${randomBytes(3).toString('hex')}`, name: slug } });
  expect(created.status).toBe(201);
  const projectId = (await created.json()).id;
  await call(projectId, 'POST', '/model-presets', { key: 'p', displayName: 'P', providerId, model: 'gateway/@preset/fast', routing: {} });
  const agent = await call(projectId, 'POST', '/agents', {
    name: 'Plain',
    initialConfig: { systemPrompt: 'Answer briefly, please.', modelPreset: 'p', limits: { maxTurns: 4 } },
  });
  expect(agent.status, agent.text).toBe(201);
  return { projectId, agentId: agent.body.id };
}

/** An idle session (no run yet: nothing unsettled). */
async function idleSession(projectId: string, agentId: string): Promise<string> {
  const created = await call(projectId, 'POST', '/sessions', { agentId });
  expect(created.status, created.text).toBe(201);
  return created.body.id;
}

async function settleLatestRun(sessionId: string): Promise<string> {
  const [session] = await t.database.db.select().from(sessions).where(eq(sessions.id, sessionId));
  await t.database.db.update(runs).set({ state: 'completed', settledAt: clock.now() }).where(eq(runs.id, session!.latestRunId!));
  await t.database.db.update(sessions).set({ status: 'completed' }).where(eq(sessions.id, sessionId));
  return session!.latestRunId!;
}

const parseFrames = (text: string) => takeSseFrames(text).frames.filter((frame) => frame.id !== null);
const sessionExists = async (id: string) => (await t.database.db.select({ id: sessions.id }).from(sessions).where(eq(sessions.id, id))).length === 1;

beforeAll(async () => {
  const server = inject('s3');
  s3 = new S3Client({
    endpoint: server.endpoint,
    region: server.region,
    forcePathStyle: true,
    credentials: { accessKeyId: server.accessKeyId, secretAccessKey: server.secretAccessKey },
  });
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  // moto listens on 127.0.0.1: only a server that allows private networks may use it.
  t = await createTestApp({ clock, env: { SVC_OUTBOUND_ALLOW_PRIVATE_NETWORK: 'true', SVC_RETENTION_SESSIONS: '1m' } });
  mainProject = (await t.login()).context.project.id;
  admin = (await t.createApiKey(['*'])).secret;
  const provider = await call(mainProject, 'POST', '/model-providers', { key: 'gw', displayName: 'Gateway', providerType: 'gateway', apiKey: 'sk-or-v1-test' });
  providerId = provider.body.id;
  await call(mainProject, 'POST', '/model-presets', { key: 'p', displayName: 'P', providerId, model: 'gateway/@preset/fast', routing: {} });
  const sandboxProvider = await call(mainProject, 'POST', '/sandbox-providers', {
    key: 'local',
    displayName: 'Local',
    providerType: 'sandbox_vendor',
    apiKey: 'local-key',
  });
  sandboxProviderId = sandboxProvider.body.id;
  snapshotId = (await call(mainProject, 'GET', `/sandbox-providers/${sandboxProviderId}/snapshots`)).body.data[0].id;
  const storage = await call(mainProject, 'POST', '/storage-providers', {
    key: 'store',
    displayName: 'Store',
    providerType: 's3',
    endpoint: server.endpoint,
    region: server.region,
    bucket,
    prefix: null,
    forcePathStyle: true,
    accessKeyId: server.accessKeyId,
    secretAccessKey: server.secretAccessKey,
  });
  expect(storage.status, storage.text).toBe(201);
  storageProviderId = storage.body.id;
  organizationId = (await t.database.db.select().from(projects).where(eq(projects.id, mainProject)))[0]!.organizationId;
});

afterAll(async () => {
  s3?.destroy();
  await t?.close();
});

describe('expired sessions', () => {
  it('go with every row and object they own; recent ones, live ones and objects still shared stay', async () => {
    const agent = await call(mainProject, 'POST', '/agents', {
      name: 'Reader',
      initialConfig: {
        systemPrompt: 'Read the files.',
        modelPreset: 'p',
        limits: { maxTurns: 4 },
        sandbox: { enabled: true, provider: 'local', snapshotId, network: 'none', capabilities: ['filesystem_read'] },
      },
    });
    expect(agent.status, agent.text).toBe(201);
    const agentId = agent.body.id;
    const shared = `shared ${randomUUID()}\n`;
    const own = `own ${randomUUID()}\n`;

    // Old: a settled session with files, tool calls, an approval, a model call, a sandbox, a backup and a delegated session.
    const old = await call(mainProject, 'POST', '/sessions', {
      agentId,
      initialMessage: 'Read these',
      files: [
        { name: 'shared.txt', contentType: 'text/plain', dataBase64: b64(shared) },
        { name: 'own.txt', contentType: 'text/plain', dataBase64: b64(own) },
      ],
    });
    expect(old.status, old.text).toBe(201);
    const oldId: string = old.body.id;
    const oldRunId = await settleLatestRun(oldId);
    const [oldSession] = await t.database.db.select().from(sessions).where(eq(sessions.id, oldId));
    const base = { organizationId, projectId: mainProject };
    const [toolCall] = await t.database.db
      .insert(toolCalls)
      .values({
        ...base,
        runId: oldRunId,
        sessionId: oldId,
        turnId: 't1',
        providerCallId: 'c1',
        toolName: 'read',
        owner: 'platform',
        status: 'succeeded',
        attempt: 1,
        approvalRequired: true,
      })
      .returning();
    await t.database.db
      .insert(approvals)
      .values({ ...base, runId: oldRunId, sessionId: oldId, toolCallId: toolCall!.id, status: 'approved', expiresAt: clock.now() });
    await t.database.db.insert(modelInvocations).values({ ...base, runId: oldRunId, turnId: 't1', attempt: 1, status: 'succeeded', startedAt: clock.now() });
    const [sandbox] = await t.database.db
      .insert(sandboxes)
      .values({ ...base, workspaceSessionId: oldId, providerId: sandboxProviderId, snapshotId, network: 'none' })
      .returning();
    await t.database.db
      .insert(sandboxCommands)
      .values({ ...base, sandboxId: sandbox!.id, runId: oldRunId, toolCallId: toolCall!.id, toolName: 'read', safeCommand: {} });
    const root = tenantRoot({ providerPrefix: null, organizationId, projectId: mainProject });
    const backupFolder = `${root}workspace-backups/${oldId}/1/`;
    await putObject(`${backupFolder}workspace.tar`, 'tar');
    await putObject(`${backupFolder}manifest.json`, '{}');
    await t.database.db.insert(workspaceBackups).values({
      ...base,
      workspaceSessionId: oldId,
      runId: oldRunId,
      generation: 1,
      storageProviderId,
      archiveKey: `${backupFolder}workspace.tar`,
      archiveSizeBytes: 3,
      archiveSha256: 'a'.repeat(64),
      manifestKey: `${backupFolder}manifest.json`,
      manifestSha256: 'b'.repeat(64),
      fileCount: 0,
      totalBytes: 0,
    });
    const [childThread] = await t.database.db.insert(threads).values(base).returning();
    const [child] = await t.database.db
      .insert(sessions)
      .values({
        ...base,
        threadId: childThread!.id,
        agentId: oldSession!.agentId,
        agentVersionId: oldSession!.agentVersionId,
        status: 'idle',
        parentSessionId: oldId,
        delegateKey: 'helper',
        lastActivityAt: clock.now(),
      })
      .returning();
    await t.database.db
      .insert(delegations)
      .values({ ...base, coordinatorSessionId: oldId, delegateKey: 'helper', childSessionId: child!.id, childAgentVersionId: oldSession!.agentVersionId });
    const fileKeys = (await t.database.db.select().from(attachments).where(eq(attachments.sessionId, oldId))).map((row) => row.objectKey);
    expect(fileKeys).toHaveLength(2);

    // Old but in flight: its run waits for a caller's tool result.
    const live = await call(mainProject, 'POST', '/sessions', { agentId, initialMessage: 'Wait for me' });
    const [liveSession] = await t.database.db.select().from(sessions).where(eq(sessions.id, live.body.id));
    await t.database.db.update(runs).set({ state: 'waiting_for_tool' }).where(eq(runs.id, liveSession!.latestRunId!));

    advance(2);
    // Recent: one holds the same file as the old session (content-addressed: the same object).
    const recent = await call(mainProject, 'POST', '/sessions', {
      agentId,
      initialMessage: 'Read this too',
      files: [{ name: 'again.txt', contentType: 'text/plain', dataBase64: b64(shared) }],
    });
    expect(recent.status, recent.text).toBe(201);
    await settleLatestRun(recent.body.id);
    const idle = await idleSession(mainProject, agentId);

    const ticks = await sweepAll();
    expect(ticks.reduce((sum, tick) => sum + tick.sessions, 0)).toBe(2); // the old root and its delegated session

    for (const id of [oldId, child!.id]) expect(await sessionExists(id), id).toBe(false);
    const gone = async (table: any, column: any, value: string) => (await t.database.db.select({ n: count() }).from(table).where(eq(column, value)))[0]!.n;
    expect({
      runs: await gone(runs, runs.sessionId, oldId),
      messages: await gone(messages, messages.threadId, oldSession!.threadId),
      threads: await gone(threads, threads.id, oldSession!.threadId),
      childThread: await gone(threads, threads.id, childThread!.id),
      toolCalls: await gone(toolCalls, toolCalls.runId, oldRunId),
      approvals: await gone(approvals, approvals.runId, oldRunId),
      modelInvocations: await gone(modelInvocations, modelInvocations.runId, oldRunId),
      sandboxes: await gone(sandboxes, sandboxes.workspaceSessionId, oldId),
      sandboxCommands: await gone(sandboxCommands, sandboxCommands.runId, oldRunId),
      attachments: await gone(attachments, attachments.sessionId, oldId),
      workspaceBackups: await gone(workspaceBackups, workspaceBackups.workspaceSessionId, oldId),
      delegations: await gone(delegations, delegations.coordinatorSessionId, oldId),
      sessionCounter: (
        await t.database.db
          .select({ n: count() })
          .from(aggregateEventCounters)
          .where(and(eq(aggregateEventCounters.aggregateType, 'session'), eq(aggregateEventCounters.aggregateId, oldId)))
      )[0]!.n,
      runCounter: (
        await t.database.db
          .select({ n: count() })
          .from(aggregateEventCounters)
          .where(and(eq(aggregateEventCounters.aggregateType, 'run'), eq(aggregateEventCounters.aggregateId, oldRunId)))
      )[0]!.n,
    }).toEqual({
      runs: 0,
      messages: 0,
      threads: 0,
      childThread: 0,
      toolCalls: 0,
      approvals: 0,
      modelInvocations: 0,
      sandboxes: 0,
      sandboxCommands: 0,
      attachments: 0,
      workspaceBackups: 0,
      delegations: 0,
      sessionCounter: 0,
      runCounter: 0,
    });
    // Its objects are gone, except the file a recent session still names.
    expect(await objectExists(`${backupFolder}workspace.tar`)).toBe(false);
    expect(await objectExists(`${backupFolder}manifest.json`)).toBe(false);
    const recentKey = (await t.database.db.select().from(attachments).where(eq(attachments.sessionId, recent.body.id)))[0]!.objectKey;
    expect(await objectExists(recentKey)).toBe(true);
    expect(fileKeys).toContain(recentKey);
    const ownKey = fileKeys.find((key) => key !== recentKey)!;
    expect(await objectExists(ownKey)).toBe(false);
    expect((await t.database.db.select({ n: count() }).from(retentionObjectDeletions))[0]!.n).toBe(0);

    // The reads agree: 404 for the old one.
    expect((await call(mainProject, 'GET', `/sessions/${oldId}`)).status).toBe(404);
    // The live one (older than the window, its run in flight), the recent ones stay.
    for (const id of [live.body.id, recent.body.id, idle]) expect((await call(mainProject, 'GET', `/sessions/${id}`)).status, id).toBe(200);
    // The product events of the old session stay: events have their own window (off here).
    expect((await t.database.db.select({ n: count() }).from(productEvents).where(eq(productEvents.sessionId, oldId)))[0]!.n).toBeGreaterThan(0);

    // Once its run settles and the window passes, the live one goes too.
    await settleLatestRun(live.body.id);
    advance(2);
    await sweepAll();
    expect(await sessionExists(live.body.id)).toBe(false);
  });

  it('a tree whose delegated session has a run in flight stays whole until that run settles', async () => {
    const { projectId, agentId } = await projectWithAgent('delegated');
    const rootId = await idleSession(projectId, agentId);
    const [root] = await t.database.db.select().from(sessions).where(eq(sessions.id, rootId));
    const base = { organizationId, projectId };
    const [thread] = await t.database.db.insert(threads).values(base).returning();
    const [child] = await t.database.db
      .insert(sessions)
      .values({
        ...base,
        threadId: thread!.id,
        agentId: root!.agentId,
        agentVersionId: root!.agentVersionId,
        status: 'waiting_for_approval',
        parentSessionId: rootId,
        delegateKey: 'helper',
        lastActivityAt: clock.now(),
      })
      .returning();
    const [childRun] = await t.database.db
      .insert(runs)
      .values({
        ...base,
        threadId: thread!.id,
        sessionId: child!.id,
        agentVersionId: root!.agentVersionId,
        state: 'waiting_for_approval',
        inputPublic: { message: 'help' },
        wallDeadlineAt: clock.now(),
        createdAt: clock.now(),
      })
      .returning();
    advance(2);
    const ticks = await sweepAll();
    expect(ticks.at(-1)!.more).toBe(false); // kept, not retried in a loop
    expect(await sessionExists(rootId)).toBe(true);
    expect(await sessionExists(child!.id)).toBe(true);
    await t.database.db.update(runs).set({ state: 'completed', settledAt: clock.now() }).where(eq(runs.id, childRun!.id));
    advance(2);
    await sweepAll();
    expect(await sessionExists(rootId)).toBe(false);
    expect(await sessionExists(child!.id)).toBe(false);
  });

  it('works in bounded batches: batch size 2 over 5 sessions takes three ticks and ends complete', async () => {
    const { projectId, agentId } = await projectWithAgent('batches');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await idleSession(projectId, agentId));
    advance(2);
    const ticks = await sweepAll({ ...INSTALLATION, batchSize: 2 });
    expect(ticks.map((tick) => tick.sessions)).toEqual([2, 2, 1]);
    expect(ticks.map((tick) => tick.more)).toEqual([true, true, false]);
    expect((await t.database.db.select({ n: count() }).from(sessions).where(inArray(sessions.id, ids)))[0]!.n).toBe(0);
  });

  it('a session the tenant deleted goes at the next sweep, whatever the window', async () => {
    const { projectId, agentId } = await projectWithAgent('deleted');
    await t.request('PATCH', `/v1/projects/${projectId}`, { apiKey: admin, body: { retention: { sessions: '30d' } } });
    const kept = await idleSession(projectId, agentId);
    const deleted = await idleSession(projectId, agentId);
    expect((await call(projectId, 'DELETE', `/sessions/${deleted}`)).status).toBe(200);
    await sweepAll();
    expect(await sessionExists(deleted)).toBe(false);
    expect(await sessionExists(kept)).toBe(true);
  });
});

describe('the per-project override', () => {
  it('wins over the installation window, and null gives it back', async () => {
    const { projectId, agentId } = await projectWithAgent('override');
    const patched = await t.request('PATCH', `/v1/projects/${projectId}`, { apiKey: admin, body: { retention: { sessions: '60m' } } });
    expect(patched.status).toBe(200);
    const body = await patched.json();
    expect(body).toMatchObject({ id: projectId, retention: { sessions: '1h', events: null }, effectiveRetention: { sessions: '1h', events: null } });
    expect((await (await t.request('GET', `/v1/projects/${projectId}`, { apiKey: admin })).json()).retention).toEqual({ sessions: '1h', events: null });
    const listed = (await (await t.request('GET', '/v1/projects?limit=200', { apiKey: admin })).json()).data.find(
      (project: { id: string }) => project.id === projectId,
    );
    expect(listed.retention).toEqual({ sessions: '1h', events: null });

    // The configuration backup carries the override (and only there: other projects' entries are as before).
    const backup = await (await t.request('GET', `/v1/organizations/${organizationId}/configuration-backup`, { apiKey: admin })).json();
    const entries = backup.projects as Array<{ slug: string; retention?: unknown }>;
    expect(entries.find((entry) => entry.slug === body.slug)!.retention).toEqual({ sessions: '1h', events: null });
    expect(entries.filter((entry) => entry.retention !== undefined)).toHaveLength(2); // this one and the 30d one of the test before

    const session = await idleSession(projectId, agentId);
    advance(2);
    await sweepAll();
    expect(await sessionExists(session)).toBe(true); // the installation's 1m would have taken it
    advance(60);
    await sweepAll();
    expect(await sessionExists(session)).toBe(false);

    const restored = await t.request('PATCH', `/v1/projects/${projectId}`, { apiKey: admin, body: { retention: { sessions: null, events: '7d' } } });
    expect(await restored.json()).toMatchObject({ retention: { sessions: null, events: '7d' }, effectiveRetention: { sessions: '1m', events: '7d' } });
    const unchanged = await t.request('PATCH', `/v1/projects/${projectId}`, { apiKey: admin, body: { retention: {} } });
    expect(await unchanged.json()).toMatchObject({ retention: { sessions: null, events: '7d' } });
  });

  it('validates its input with the 400 envelope, and gets the shared checks', async () => {
    const { projectId } = await projectWithAgent('validation');
    const patch = (body: unknown, options: Record<string, unknown> = {}) =>
      t.request('PATCH', `/v1/projects/${projectId}`, { apiKey: admin, body, ...options });
    for (const [body, path] of [
      [{ retention: { sessions: '0d' } }, 'body.retention.sessions'],
      [{ retention: { sessions: '3651d' } }, 'body.retention.sessions'],
      [{ retention: { events: '1y' } }, 'body.retention.events'],
      [{ retention: { events: 30 } }, 'body.retention.events'],
      [{ retention: { sessions: '1d', keep: true } }, 'body.retention'],
      [{ name: 'renamed' }, 'body'],
      [{}, 'body'], // neither retention nor budget
    ] as const) {
      const response = await patch(body);
      const error = (await response.json()).error;
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(error.code).toBe('bad_request');
      expect(error.requestId).toBeTruthy();
      expect(error.details?.path ?? 'body', JSON.stringify(body)).toMatch(new RegExp(`^${path.replace(/\./g, '\\.')}`));
    }
    const malformed = await t.request('PATCH', `/v1/projects/${projectId}`, {
      apiKey: admin,
      rawBody: '{"retention":',
      headers: { 'content-type': 'application/json' },
    });
    expect(malformed.status).toBe(400);
    expect((await patch({ retention: { sessions: '1d' } }, { apiKey: undefined })).status).toBe(401);
    expect((await patch({ retention: { sessions: '1d' } }, { idempotencyKey: null })).status).toBe(400);
    const reader = (await t.createApiKey(['run:read'])).secret;
    expect((await patch({ retention: { sessions: '1d' } }, { apiKey: reader })).status).toBe(403);
    const [otherOrganization] = await t.database.db
      .insert(organizations)
      .values({ slug: `other-${randomUUID()}`, name: 'Other' })
      .returning();
    const [otherProject] = await t.database.db.insert(projects).values({ organizationId: otherOrganization!.id, slug: 'theirs', name: 'Theirs' }).returning();
    expect((await t.request('PATCH', `/v1/projects/${otherProject!.id}`, { apiKey: admin, body: { retention: { sessions: '1d' } } })).status).toBe(403);
    // Nothing changed by any of them.
    expect((await t.database.db.select().from(projects).where(eq(projects.id, projectId)))[0]!.sessionRetentionMinutes).toBeNull();
  });
});

describe('product events', () => {
  it('the feed refuses a cursor older than the kept events with 410 cursor_expired, over SSE and once=true', async () => {
    const { projectId, agentId } = await projectWithAgent('feed');
    await t.request('PATCH', `/v1/projects/${projectId}`, { apiKey: admin, body: { retention: { events: '1m' } } });
    const firstSession = await idleSession(projectId, agentId);
    await idleSession(projectId, agentId);
    const early = parseFrames((await call(projectId, 'GET', '/events?once=true')).text);
    expect(early.length).toBeGreaterThan(1);
    const oldCursor = early[0]!.id!;
    const lastOldCursor = early[early.length - 1]!.id!;
    advance(2);
    await idleSession(projectId, agentId);
    const ticks = await sweepAll({ ...INSTALLATION, sessionsMinutes: null });
    expect(ticks.reduce((sum, tick) => sum + tick.events, 0)).toBe(early.length);

    const expectExpired = async (response: { status: number; body: any }, path: string) => {
      expect(response.status).toBe(410);
      expect(response.body.error).toMatchObject({ code: 'cursor_expired', details: { path, restartFrom: 'now' } });
      expect(response.body.error.message).toMatch(/from=now/);
    };
    await expectExpired(await call(projectId, 'GET', '/events?once=true', undefined, { headers: { 'last-event-id': oldCursor } }), 'header.Last-Event-ID');
    await expectExpired(
      await call(projectId, 'GET', '/events', undefined, { headers: { 'last-event-id': oldCursor, accept: 'text/event-stream' } }),
      'header.Last-Event-ID',
    );
    await expectExpired(await call(projectId, 'GET', `/events?once=true&cursor=${oldCursor}`), 'query.cursor');
    await expectExpired(
      await call(projectId, 'GET', `/sessions/${firstSession}/events?once=true`, undefined, { headers: { 'last-event-id': oldCursor } }),
      'header.Last-Event-ID',
    );

    // The last purged position is a cursor that misses nothing: it resumes.
    const resumed = await call(projectId, 'GET', '/events?once=true', undefined, { headers: { 'last-event-id': lastOldCursor } });
    expect(resumed.status).toBe(200);
    const after = parseFrames(resumed.text);
    expect(after.length).toBeGreaterThan(0);
    // Without a cursor the feed starts at the oldest event kept; from=now after the newest.
    const fromStart = parseFrames((await call(projectId, 'GET', '/events?once=true')).text);
    expect(fromStart.map((frame) => frame.id)).toEqual(after.map((frame) => frame.id));
    const fromNow = await call(projectId, 'GET', '/events?once=true&from=now');
    expect(fromNow.status).toBe(200);
    expect(parseFrames(fromNow.text)).toEqual([]);
  });

  it('an enabled webhook holds the events it has not delivered; a disabled one does not', async () => {
    const { projectId, agentId } = await projectWithAgent('hooks');
    await t.request('PATCH', `/v1/projects/${projectId}`, { apiKey: admin, body: { retention: { events: '1m' } } });
    const webhook = await call(projectId, 'POST', '/event-webhooks', {
      displayName: 'Receiver',
      endpointUrl: 'http://127.0.0.1:9/hook',
      signingSecret: `whsec_${randomBytes(24).toString('base64')}`,
      includeMessageContent: false,
      deliverFrom: 'beginning',
    });
    expect(webhook.status, webhook.text).toBe(201);
    for (let i = 0; i < 4; i++) await idleSession(projectId, agentId);
    const events = async () => (await t.database.db.select({ n: count() }).from(productEvents).where(eq(productEvents.projectId, projectId)))[0]!.n;
    const before = await events();
    expect(before).toBeGreaterThan(0);
    advance(2);
    await sweepAll({ ...INSTALLATION, sessionsMinutes: null });
    expect(await events()).toBe(before);

    // Delivered up to some position: the ones before it may go.
    const [second] = await t.database.db
      .select({ position: productEvents.projectPosition })
      .from(productEvents)
      .where(eq(productEvents.projectId, projectId))
      .orderBy(productEvents.projectPosition)
      .offset(1)
      .limit(1);
    await t.database.db.update(eventWebhooks).set({ deliveredPosition: second!.position }).where(eq(eventWebhooks.id, webhook.body.id));
    await sweepAll({ ...INSTALLATION, sessionsMinutes: null });
    expect(await events()).toBe(before - 2);

    expect((await call(projectId, 'PATCH', `/event-webhooks/${webhook.body.id}`, { enabled: false })).status).toBe(200);
    await sweepAll({ ...INSTALLATION, sessionsMinutes: null });
    // The webhook's own update appended no event; everything older than the window is gone.
    const left = await t.database.db.select({ occurredAt: productEvents.occurredAt }).from(productEvents).where(eq(productEvents.projectId, projectId));
    expect(left.every((row) => row.occurredAt.getTime() > clock.now().getTime() - 60_000)).toBe(true);
    expect(left.length).toBeLessThan(before - 2);
  });
});

describe('deleted projects', () => {
  it('leave no objects behind: the sweep removes their folders and nothing else', async () => {
    const { projectId } = await projectWithAgent('gone');
    const goneRoot = tenantRoot({ providerPrefix: null, organizationId, projectId });
    const keptRoot = tenantRoot({ providerPrefix: null, organizationId, projectId: mainProject });
    const goneKeys = [`${goneRoot}run-files/${'c'.repeat(64)}`, `${goneRoot}workspace-backups/${randomUUID()}/1/workspace.tar`];
    const keptKey = `${keptRoot}run-files/${'d'.repeat(64)}`;
    for (const key of [...goneKeys, keptKey]) await putObject(key, 'bytes');
    expect((await t.request('DELETE', `/v1/projects/${projectId}`, { apiKey: admin })).status).toBe(200);
    const ticks = await sweepAll({ ...INSTALLATION, batchSize: 1 });
    expect(ticks.reduce((sum, tick) => sum + tick.deletedProjects, 0)).toBe(1);
    for (const key of goneKeys) expect(await objectExists(key), key).toBe(false);
    expect(await objectExists(keptKey)).toBe(true);
  });
});
