import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modelInvocations, productEvents, runTurnReservations } from '../../db/schema/index.ts';
import { type ServiceContext, systemContext } from '../../services/kernel/service-context.ts';
import { reserveModelTurn } from '../../services/runtime/model-invocations/index.ts';
import { beginModelTurn } from '../../services/runtime/model-turns/index.ts';
import { and } from 'drizzle-orm';
import type { TestApp } from '../support/app.ts';
import { startRunApp } from '../support/run-app.ts';

/** The durable per-run turn budget (spec 3 "Budget rules"). Runs stay queued until the worker starts. */
let app: Awaited<ReturnType<typeof startRunApp>>;
let t: TestApp;

beforeAll(async () => {
  app = await startRunApp({ runtime: 'later' });
  t = app.t;
}, 60_000);
afterAll(() => app?.close());

const call = (method: string, path: string, body?: unknown) => app.call(method, path, body);

const ctx = (): ServiceContext => systemContext({ db: t.database.db, logger: t.deps.logger, clock: t.deps.clock });

/** A queued run nobody starts (the starter has no target yet). */
async function queuedRun(maxTurns: number): Promise<string> {
  const agent = await call('POST', '/agents', {
    name: `Budget ${Math.random()}`,
    initialConfig: { systemPrompt: 'Count.', modelPreset: 'fast', limits: { maxTurns } },
  });
  const session = await call('POST', '/sessions', { agentId: agent.body.id, initialMessage: 'Go.' });
  return session.body.latestRunId;
}

describe('turn budget', () => {
  it('reserves once per turn id, reuses a replayed turn, and stops at maxTurns', async () => {
    const runId = await queuedRun(3);
    const results = [];
    for (const turnId of ['turn-1', 'turn-2', 'turn-1', 'turn-3', 'turn-4']) results.push(await reserveModelTurn(ctx(), { runId, turnId, maxTurns: 3 }));
    expect(results.map((result) => (result.reserved ? { reserved: true, ordinal: result.ordinal } : result))).toEqual([
      { reserved: true, ordinal: 1 },
      { reserved: true, ordinal: 2 },
      { reserved: true, ordinal: 1 },
      { reserved: true, ordinal: 3 },
      { reserved: false },
    ]);
  });

  it('parallel turns share the budget exactly', async () => {
    const runId = await queuedRun(5);
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => reserveModelTurn(ctx(), { runId, turnId: `parallel-${i}`, maxTurns: 5 })));
    expect(results.filter((r) => r.reserved)).toHaveLength(5);
    expect((await t.database.db.select().from(runTurnReservations).where(eq(runTurnReservations.runId, runId))).map((r) => r.ordinal).sort()).toEqual([
      1, 2, 3, 4, 5,
    ]);
  });

  it('parallel model-call begins share the budget exactly: the one-write begin that loses a race to an ordinal falls back to the locking path', async () => {
    const runId = await queuedRun(5);
    const deps = { keyring: t.deps.keyring, deploymentPresets: t.deps.deploymentPresets, currency: t.deps.settings.currency };
    const plans = await Promise.all(
      Array.from({ length: 12 }, (_, i) => beginModelTurn({ ctx: ctx(), deps, input: { runId, turnId: `turn-${i + 1}`, attempt: 1 } })),
    );
    expect(plans.filter((plan) => plan.kind === 'ready')).toHaveLength(5);
    expect(plans.filter((plan) => plan.kind === 'budget_exhausted')).toHaveLength(7);
    const reservations = await t.database.db.select().from(runTurnReservations).where(eq(runTurnReservations.runId, runId));
    expect(reservations.map((r) => r.ordinal).sort()).toEqual([1, 2, 3, 4, 5]);
    const attempts = await t.database.db.select().from(modelInvocations).where(eq(modelInvocations.runId, runId));
    expect(attempts.map((row) => row.turnId).sort()).toEqual(reservations.map((row) => row.turnId).sort());
    const started = await t.database.db
      .select()
      .from(productEvents)
      .where(and(eq(productEvents.aggregateId, runId), eq(productEvents.kind, 'model.call_started')));
    expect(started.map((event) => event.publicPayload.turnId).sort()).toEqual(reservations.map((row) => row.turnId).sort());
    // A replay of a begun turn reserves nothing more and records no second attempt or event.
    const replay = await beginModelTurn({ ctx: ctx(), deps, input: { runId, turnId: reservations[0]!.turnId, attempt: 1 } });
    expect(replay.kind).toBe('ready');
    expect(await t.database.db.select().from(modelInvocations).where(eq(modelInvocations.runId, runId))).toHaveLength(5);
  });

  it('a run whose budget is spent fails with model_turn_limit_exceeded naming the maximum', async () => {
    const runId = await queuedRun(2);
    // Earlier turns of this run (scratch calls) used the whole budget before the next turn.
    for (const turnId of ['scratch-1', 'scratch-2']) await reserveModelTurn(ctx(), { runId, turnId, maxTurns: 2 });
    await app.startRuntime(); // the reconciler starts the queued run
    const deadline = Date.now() + 45_000;
    let run;
    do {
      run = (await call('GET', `/runs/${runId}`)).body;
      if (run.state === 'failed') break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    } while (Date.now() < deadline);
    expect(run.state).toBe('failed');
    expect(run.failure.errorCode).toBe('model_turn_limit_exceeded');
    expect(run.failure.errorExplanation).toContain('2');
    const failed = (await t.database.db.select().from(productEvents).where(eq(productEvents.kind, 'model.invocation_failed'))).find(
      (row) => row.aggregateId === runId,
    );
    expect(failed?.publicPayload).toMatchObject({ errorCode: 'model_turn_limit_exceeded' });
    // No provider call was made without a reservation.
    expect(await t.database.db.select().from(modelInvocations).where(eq(modelInvocations.runId, runId))).toEqual([]);
  }, 60_000);
});
