import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECONCILE_AFTER_MS, RESTART_AFTER_MS, reconcileQueuedRuns, startRunReconciler } from '../../processes/reconcile-queued-runs.ts';
import { systemContext } from '../../services/kernel/service-context.ts';
import { FAKE_KEYS } from '../fixtures/model-vendors/catalog-server.ts';
import { startFakeModelServers, type FakeModelServers } from '../fixtures/model-vendors/chat-server.ts';
import { createRecordingRunStarter, createTestApp, manualClock, type TestApp } from '../support/app.ts';
import { waitFor } from '../support/worker-process.ts';

/**
 * The worker's reconciler (ARCHITECTURE durability rule 2) against the real database: a run whose
 * start was lost is started once it has been queued RECONCILE_AFTER_MS, and a run it started that
 * stays queued (a backlog of workflow tasks) is not started again on every pass. The runtime
 * boundary is a recording starter that starts nothing, so the runs stay queued.
 */
let t: TestApp;
let fakes: FakeModelServers;
let agentId: string;
let project: string;
let key: string;
const clock = manualClock(new Date());
const starter = createRecordingRunStarter();

beforeAll(async () => {
  fakes = await startFakeModelServers();
  t = await createTestApp({ env: fakes.env, clock, runStarter: starter });
  project = `/v1/projects/${(await t.login()).context.project.id}`;
  key = (await t.createApiKey(['*'])).secret;
  const provider = await call('POST', '/model-providers', { key: 'openai', displayName: 'OpenAI', providerType: 'vendor_a', apiKey: FAKE_KEYS.vendor_a });
  await call('POST', '/model-presets', { key: 'fast', displayName: 'Fast', providerId: provider.body.id, model: 'vendor_a/gpt-5.1', routing: {} });
  agentId = (await call('POST', '/agents', { name: 'Queued', initialConfig: { systemPrompt: 'Be brief.', modelPreset: 'fast', limits: { maxTurns: 4 } } })).body
    .id;
}, 120_000);

afterAll(async () => {
  await t?.close();
  await fakes?.close();
});

async function call(method: string, urlPath: string, body?: unknown) {
  const response = await t.request(method, `${project}${urlPath}`, { apiKey: key, body });
  return { status: response.status, body: await response.json() };
}

const startsOf = (runId: string) => starter.starts.filter((start) => start.runId === runId).length;

describe('the run reconciler', () => {
  it('starts a run queued past RECONCILE_AFTER_MS, not before', async () => {
    const session = await call('POST', '/sessions', { agentId, initialMessage: 'Anyone?' });
    const runId = session.body.latestRunId as string;
    expect(startsOf(runId)).toBe(1); // the API's own start, after its commit
    const ctx = systemContext({ db: t.database.db, logger: t.deps.logger, clock });

    clock.advance(RECONCILE_AFTER_MS - 100);
    expect(await reconcileQueuedRuns(ctx, starter)).not.toContain(runId);
    clock.advance(200);
    expect(await reconcileQueuedRuns(ctx, starter)).toContain(runId);
    expect(startsOf(runId)).toBe(2);
    // What the reconciler was told to skip, it skips.
    expect(await reconcileQueuedRuns(ctx, starter, { skip: new Set([runId]) })).not.toContain(runId);
  });

  it('starts a run it already started again only after RESTART_AFTER_MS', async () => {
    const session = await call('POST', '/sessions', { agentId, initialMessage: 'Still there?' });
    const runId = session.body.latestRunId as string;
    clock.advance(RECONCILE_AFTER_MS + 100);
    const ctx = systemContext({ db: t.database.db, logger: t.deps.logger, clock });
    const reconciler = startRunReconciler(ctx, starter, 20);
    try {
      await waitFor('the reconciler to start the run', async () => (startsOf(runId) === 2 ? true : null), 30_000);
      // Many passes later, the still-queued run has not been started again.
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(startsOf(runId)).toBe(2);
      clock.advance(RESTART_AFTER_MS);
      await waitFor('the run to be started again', async () => (startsOf(runId) === 3 ? true : null), 30_000);
    } finally {
      reconciler.stop();
    }
  });
});
