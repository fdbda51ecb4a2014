import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scheduleFirings, schedules, sessions } from '../../db/schema/index.ts';
import { lookupOrderTool } from '../support/platform-tools.ts';
import { startRunApp } from '../support/run-app.ts';
import { waitFor } from '../support/worker-process.ts';

/**
 * What bounds the runs schedules make (issue 45 item 8, docs/decisions/schedule-minimum-interval.md,
 * docs/decisions/schedule-firings-and-run-quota.md):
 * the server's shortest interval (SVC_SCHEDULE_MIN_INTERVAL_SECONDS, 60 s by default: this app
 * keeps the default), and the project's unsettled-runs quota, which a firing meets like any
 * request that creates a run (here 1, so one busy run fills it): a firing it refuses is recorded
 * `failed` with `rate_limited` and makes nothing, once.
 */
let f: Awaited<ReturnType<typeof startRunApp>>;
let agentId: string;

beforeAll(async () => {
  f = await startRunApp({ env: { SVC_PROJECT_UNSETTLED_RUNS_LIMIT: '1' } });
  const agent = await f.call('POST', '/agents', {
    name: 'Limited',
    initialConfig: { systemPrompt: 'Answer briefly.', modelPreset: 'fast', tools: [lookupOrderTool], limits: { maxTurns: 6 } },
  });
  expect(agent.status, JSON.stringify(agent.body)).toBe(201);
  agentId = agent.body.id;
}, 120_000);
afterAll(() => f?.close());

describe('the shortest interval', () => {
  it('an interval below 60 s is a 400 naming the limit, on creation and on change; 60 s and a cron expression every minute are fine', async () => {
    const refused = await f.call('POST', '/schedules', { agentId, message: 'Tick.', intervalSeconds: 59, paused: true });
    expect(refused.status, JSON.stringify(refused.body)).toBe(400);
    expect(refused.body.error).toMatchObject({
      code: 'bad_request',
      details: { path: 'body.intervalSeconds', limit: 'schedule_min_interval_seconds', minimum: 60 },
    });
    expect(refused.body.error.message).toContain('at least 60');
    expect(refused.body.error.message).toContain('SVC_SCHEDULE_MIN_INTERVAL_SECONDS');

    const minute = await f.call('POST', '/schedules', { agentId, message: 'Tick.', intervalSeconds: 60, paused: true });
    expect(minute.status, JSON.stringify(minute.body)).toBe(201);
    const everyMinute = await f.call('POST', '/schedules', { agentId, message: 'Tick.', cron: '* * * * *', paused: true });
    expect(everyMinute.status, JSON.stringify(everyMinute.body)).toBe(201);

    const shortened = await f.call('PATCH', `/schedules/${minute.body.id}`, { intervalSeconds: 1 });
    expect(shortened.status).toBe(400);
    expect(shortened.body.error.details).toMatchObject({ path: 'body.intervalSeconds', minimum: 60 });
    const fromCron = await f.call('PATCH', `/schedules/${everyMinute.body.id}`, { intervalSeconds: 30 });
    expect(fromCron.status).toBe(400);
    const [row] = await f.t.database.db.select().from(schedules).where(eq(schedules.id, minute.body.id));
    expect(row!.intervalSeconds).toBe(60);
  });

  it('a paused schedule below the minimum (restored, or older than the rule) is not unpaused until it is given a longer interval', async () => {
    const created = await f.call('POST', '/schedules', { agentId, message: 'Tick.', intervalSeconds: 3600, paused: true });
    expect(created.status).toBe(201);
    await f.t.database.db.update(schedules).set({ intervalSeconds: 1 }).where(eq(schedules.id, created.body.id));
    const refused = await f.call('POST', `/schedules/${created.body.id}/unpause`);
    expect(refused.status, JSON.stringify(refused.body)).toBe(409);
    expect(refused.body.error.details).toMatchObject({ limit: 'schedule_min_interval_seconds', minimum: 60 });
    expect((await f.call('GET', `/schedules/${created.body.id}`)).body.paused).toBe(true);
    // A name-only change of it is refused too: the merged schedule keeps the short interval.
    expect((await f.call('PATCH', `/schedules/${created.body.id}`, { name: 'still too fast' })).status).toBe(400);
    expect((await f.call('PATCH', `/schedules/${created.body.id}`, { intervalSeconds: 120 })).status).toBe(200);
    const unpaused = await f.call('POST', `/schedules/${created.body.id}/unpause`);
    expect(unpaused.status, JSON.stringify(unpaused.body)).toBe(200);
    expect((await f.call('DELETE', `/schedules/${created.body.id}`)).status).toBe(200);
  });
});

describe("the project's run quota", () => {
  it('a firing past the unsettled-runs quota is recorded failed `rate_limited`, makes nothing and is not retried; the next one, once runs settled, starts', async () => {
    // One run waiting for the caller's tool result: the project holds its one unsettled run.
    f.fakes.vendor_a.reply({ toolCalls: [{ name: 'lookup_order', arguments: { orderId: 'A1' } }] });
    const busy = await f.call('POST', '/sessions', { agentId, initialMessage: 'Where is my order?' });
    expect(busy.status, JSON.stringify(busy.body)).toBe(201);
    const busyRunId = busy.body.latestRunId as string;
    await f.waitForRun(busyRunId, (run) => run.state === 'waiting_for_tool');
    expect((await f.call('POST', '/sessions', { agentId, initialMessage: 'Another?' })).status).toBe(429);

    const schedule = await f.call('POST', '/schedules', { name: 'quota-bound', agentId, message: 'Report.', intervalSeconds: 3600, paused: true });
    expect(schedule.status).toBe(201);
    expect((await f.call('POST', `/schedules/${schedule.body.id}/trigger`)).status).toBe(202);
    const firingsOf = () => f.t.database.db.select().from(scheduleFirings).where(eq(scheduleFirings.scheduleId, schedule.body.id));
    const [refused] = await waitFor('the refused firing', async () => ((await firingsOf()).length > 0 ? firingsOf() : null), 30_000);
    expect(refused).toMatchObject({ outcome: 'failed', errorCode: 'rate_limited', sessionId: null, runId: null });
    expect(refused!.errorExplanation).toContain('unsettled runs');
    const made = () =>
      f.t.database.db
        .select()
        .from(sessions)
        .where(and(eq(sessions.projectId, f.projectId), eq(sessions.title, 'quota-bound')));
    expect(await made()).toEqual([]);
    const shown = await f.call('GET', `/schedules/${schedule.body.id}`);
    expect(shown.body.recentFirings).toMatchObject([{ outcome: 'failed', errorCode: 'rate_limited' }]);

    // The busy run settles and frees the quota: the firing refused earlier is not retried into a
    // run (still one row, no session); the next firing starts one.
    const [call] = (await f.call('GET', `/tool-calls?runId=${busyRunId}`)).body.data;
    const claim = await f.call('POST', `/tool-calls/${call.id}/claim`);
    expect(
      (
        await f.call('POST', `/tool-calls/${call.id}/result`, {
          fence: claim.body.fence,
          safeResult: { version: 1, status: 'success', value: { status: 'shipped' } },
        })
      ).status,
    ).toBe(202);
    await f.waitForRun(busyRunId);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(await firingsOf()).toHaveLength(1);
    expect(await made()).toEqual([]);

    expect((await f.call('POST', `/schedules/${schedule.body.id}/trigger`)).status).toBe(202);
    const started = await waitFor('the next firing', async () => (await firingsOf()).find((firing) => firing.outcome === 'started') ?? null, 30_000);
    expect(started.runId).not.toBeNull();
    await f.waitForRun(started.runId!);
    expect(await made()).toHaveLength(1);
  }, 90_000);
});
