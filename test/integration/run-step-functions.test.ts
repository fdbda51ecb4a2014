import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { productEvents, runs, sessions } from '../../db/schema/index.ts';
import { migrationsFolder } from '../../db/migrate.ts';
import { systemClock, systemContext, type ServiceContext } from '../../services/kernel/service-context.ts';
import { admitRun, transitionRun, type AdmissionGate } from '../../services/runtime/runs/index.ts';
import { createProvider } from '../fixtures/model-vendors/helpers.ts';
import { startFakeModelProviders, type FakeModelProviders } from '../fixtures/model-vendors/catalog-server.ts';
import { createTestApp, type TestApp } from '../support/app.ts';

/**
 * The run steps' server-side functions (migration 0028, docs/decisions/cost-per-run.md): each
 * function's source sits beside the verb that calls it, and the newest migration that defines it
 * carries exactly that source; admission's one statement keeps every rule of the transaction it
 * replaces for the common case and leaves the rest to it.
 */
const root = path.resolve(import.meta.dirname, '../..');
const FUNCTIONS = [
  { name: 'svc_append_product_event', source: 'services/kernel/events/append-product-event.sql' },
  { name: 'svc_admit_run', source: 'services/runtime/runs/admit-run.sql' },
];

describe('step functions are versioned by migrations', () => {
  it.each(FUNCTIONS)('the newest migration defining $name carries $source', ({ name, source }) => {
    const migrations = readdirSync(migrationsFolder)
      .filter((file) => file.endsWith('.sql'))
      .sort();
    const defining = migrations.filter((file) => readFileSync(path.join(migrationsFolder, file), 'utf8').includes(`create or replace function ${name}(`));
    expect(defining.length).toBeGreaterThan(0);
    const newest = readFileSync(path.join(migrationsFolder, defining.at(-1)!), 'utf8');
    expect(newest).toContain(readFileSync(path.join(root, source), 'utf8').trim());
  });
});

let t: TestApp;
let fakes: FakeModelProviders;
let projectId: string;
let admin: string;
let agentId: string;

const systemCtx = (): ServiceContext => systemContext({ db: t.database.db, logger: t.deps.logger, clock: systemClock });
const gateOf = (runningRunsLimit: number | null): AdmissionGate => ({ runningRunsLimit, wake: async () => {}, start: async () => {} });

beforeAll(async () => {
  fakes = await startFakeModelProviders();
  t = await createTestApp({ env: fakes.env });
  projectId = (await t.login()).context.project.id;
  admin = (await t.createApiKey(['*'])).secret;
  const provider = await createProvider(t, { apiKey: admin, projectId, key: 'openai', providerType: 'vendor_a' });
  const preset = await t.request('POST', `/v1/projects/${projectId}/model-presets`, {
    apiKey: admin,
    body: { key: 'fast', displayName: 'Fast', providerId: provider.id, model: 'vendor_a/gpt-5.1', routing: {}, settings: {} },
  });
  expect(preset.status).toBe(201);
  const created = await t.request('POST', `/v1/projects/${projectId}/agents`, {
    apiKey: admin,
    body: { name: 'Admitted', initialConfig: { systemPrompt: 'You help.', modelPreset: 'fast', tools: [], limits: { maxTurns: 5, timeoutMs: 120_000 } } },
  });
  expect(created.status).toBe(201);
  agentId = (await created.json()).id;
});
afterAll(async () => {
  await t?.close();
  await fakes?.close();
});

/** A session whose run is queued (the test app records workflow starts, it runs none). */
async function queuedRun(): Promise<{ runId: string; sessionId: string }> {
  const response = await t.request('POST', `/v1/projects/${projectId}/sessions`, { apiKey: admin, body: { agentId, initialMessage: 'Hello' } });
  expect(response.status).toBe(201);
  const session = await response.json();
  return { runId: session.run.id, sessionId: session.id };
}
const runRow = async (runId: string) => (await t.database.db.select().from(runs).where(eq(runs.id, runId)))[0]!;
const sessionStatus = async (sessionId: string) => (await t.database.db.select().from(sessions).where(eq(sessions.id, sessionId)))[0]!.status;
const runEventKinds = async (runId: string) =>
  (
    await t.database.db
      .select()
      .from(productEvents)
      .where(and(eq(productEvents.aggregateType, 'run'), eq(productEvents.aggregateId, runId)))
  )
    .sort((a, b) => a.aggregateSequence - b.aggregateSequence)
    .map((event) => [event.kind, event.publicPayload]);

describe('admission in one statement', () => {
  it('admits a queued run with its limits, its session running and one run.running event; a retry changes nothing', async () => {
    const { runId, sessionId } = await queuedRun();
    const admission = await admitRun({ ctx: systemCtx(), gate: gateOf(4), input: { runId } });
    expect(admission).toMatchObject({
      kind: 'admitted',
      maxTurns: 5,
      timeoutMs: 120_000,
      cancellationRequested: false,
      sandboxEnabled: false,
      settlesOnReply: true,
    });
    const run = await runRow(runId);
    expect(run.state).toBe('running');
    expect(run.admittedAt).not.toBeNull();
    expect(admission.kind === 'admitted' && admission.wallDeadlineAtMs).toBe(run.wallDeadlineAt.getTime());
    expect(await sessionStatus(sessionId)).toBe('running');
    const events = await runEventKinds(runId);
    expect(events.at(-1)).toEqual(['run.running', { runId, sessionId, state: 'running', previousState: 'queued' }]);

    // An activity retry: the same answer, no second event, the admission time kept.
    expect(await admitRun({ ctx: systemCtx(), gate: gateOf(4), input: { runId } })).toEqual(admission);
    expect(await runEventKinds(runId)).toEqual(events);
    expect((await runRow(runId)).admittedAt).toEqual(run.admittedAt);
  });

  it('reports a settled run as settled', async () => {
    const { runId } = await queuedRun();
    await transitionRun({ ctx: systemCtx(), input: { runId, to: 'cancelled' } });
    expect(await admitRun({ ctx: systemCtx(), gate: gateOf(null), input: { runId } })).toEqual({ kind: 'settled', state: 'cancelled' });
  });

  it('a run whose cancellation came before its start settles cancelled (the transaction decides it)', async () => {
    const { runId, sessionId } = await queuedRun();
    await t.database.db.update(runs).set({ cancellationRequestedAt: new Date() }).where(eq(runs.id, runId));
    expect(await admitRun({ ctx: systemCtx(), gate: gateOf(4), input: { runId } })).toEqual({ kind: 'settled', state: 'cancelled' });
    expect((await runRow(runId)).failure).toMatchObject({ errorCode: 'cancelled' });
    expect(await sessionStatus(sessionId)).toBe('cancelled');
  });

  it('with every place of the limit held, the run waits, marked deferred, and is admitted once a place is free', async () => {
    // Other tests' runs of this project are running too: the limit is set from what runs now.
    const running = async () =>
      (
        await t.database.db
          .select()
          .from(runs)
          .where(and(eq(runs.projectId, projectId), eq(runs.state, 'running')))
      ).length;
    const limit = (await running()) + 1;
    const holder = await queuedRun();
    expect((await admitRun({ ctx: systemCtx(), gate: gateOf(limit), input: { runId: holder.runId } })).kind).toBe('admitted');
    expect(await running()).toBe(limit);
    const waiting = await queuedRun();
    expect(await admitRun({ ctx: systemCtx(), gate: gateOf(limit), input: { runId: waiting.runId } })).toEqual({ kind: 'waiting' });
    const deferred = await runRow(waiting.runId);
    expect(deferred.state).toBe('queued');
    expect(deferred.admissionDeferredAt).not.toBeNull();
    expect(await admitRun({ ctx: systemCtx(), gate: gateOf(limit + 1), input: { runId: waiting.runId } })).toMatchObject({ kind: 'admitted' });
    expect((await runRow(waiting.runId)).state).toBe('running');
  });

  it('404 for a run that does not exist', async () => {
    await expect(admitRun({ ctx: systemCtx(), gate: gateOf(4), input: { runId: '00000000-0000-4000-8000-000000000000' } })).rejects.toMatchObject({
      name: 'NotFoundError',
    });
  });
});
