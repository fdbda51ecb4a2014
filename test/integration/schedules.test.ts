import { randomUUID } from 'node:crypto';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { ScheduleNotFoundError, type Client } from '@temporalio/client';
import { and, asc, eq, isNull } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { attachments, auditEntries, runs, scheduleFirings, schedules as schedulesTable, sessions } from '../../db/schema/index.ts';
import { temporalScheduleId } from '../../domain/schedules/workflow.ts';
import { startRunApp } from '../support/run-app.ts';
import { waitFor } from '../support/worker-process.ts';
import { lookupOrderTool } from '../support/platform-tools.ts';

/**
 * Schedules (issue 35 part 1) against the real worker, Temporal dev server and Postgres, with the
 * fake vendor_a as the model: firings on an interval, each exactly one run; pause, unpause and
 * trigger; overlap `skip` under a slow model; turns into one session (enqueued or skipped while
 * busy); the Temporal Schedule following the row; refusals with the error envelope; a creator
 * whose key is revoked; and the acting principal (issue 45): who last changed what a schedule does
 * is who its firings act as, and "run now" needs what creating it needs.
 */
let f: Awaited<ReturnType<typeof startRunApp>>;
let temporal: Client;
let agentId: string;

beforeAll(async () => {
  // The S3 test server (moto) listens on 127.0.0.1: storage needs the development network setting.
  // Firings every second or two keep these tests short: this server allows intervals from 1 s
  // (schedules-limits.test.ts tests the default minimum of 60 s).
  f = await startRunApp({ env: { SVC_OUTBOUND_ALLOW_PRIVATE_NETWORK: 'true', SVC_SCHEDULE_MIN_INTERVAL_SECONDS: '1' } });
  temporal = f.runtime.client.client;
  const agent = await f.call('POST', '/agents', {
    name: 'Scheduled',
    initialConfig: { systemPrompt: 'Answer briefly.', modelPreset: 'fast', limits: { maxTurns: 4 } },
  });
  expect(agent.status, JSON.stringify(agent.body)).toBe(201);
  agentId = agent.body.id;
}, 120_000);
afterAll(() => f?.close());

const SETTLED = ['completed', 'failed', 'cancelled', 'timed_out'];

const firingsOf = (scheduleId: string) =>
  f.t.database.db
    .select()
    .from(scheduleFirings)
    .where(eq(scheduleFirings.scheduleId, scheduleId))
    .orderBy(asc(scheduleFirings.scheduledAt), asc(scheduleFirings.firedAt));
const runsOf = (runIds: string[]) => Promise.all(runIds.map(async (id) => (await f.t.database.db.select().from(runs).where(eq(runs.id, id)))[0]!));
const describeSchedule = (scheduleId: string) => temporal.schedule.getHandle(temporalScheduleId(scheduleId)).describe();

async function createSchedule(body: Record<string, unknown>) {
  const created = await f.call('POST', '/schedules', { agentId, message: 'Report, please.', ...body });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body as { id: string; paused: boolean };
}

async function waitForFirings(scheduleId: string, count: number, timeoutMs = 30_000) {
  return waitFor(
    `${count} firings of ${scheduleId}`,
    async () => {
      const rows = await firingsOf(scheduleId);
      return rows.length >= count ? rows : null;
    },
    timeoutMs,
  );
}

describe('a schedule on an interval', () => {
  it('fires every 2 s, one run per firing; pause stops it, unpause resumes it, trigger fires at once; DELETE removes the Temporal Schedule', async () => {
    const schedule = await createSchedule({ name: 'every two seconds', intervalSeconds: 2, overlap: 'allow_all' });
    // The Temporal Schedule follows the row after the commit.
    const described = await waitFor('the Temporal Schedule', () => describeSchedule(schedule.id).catch(() => null), 30_000);
    expect(described.policies.overlap).toBe('ALLOW_ALL');
    expect(described.action.workflowType).toBe('scheduledFiringWorkflow');

    const firings = await waitForFirings(schedule.id, 3);
    // Each firing one session and one run, none twice.
    const started = firings.filter((firing) => firing.outcome === 'started');
    expect(started.length).toBe(firings.length);
    expect(new Set(firings.map((firing) => firing.firingKey)).size).toBe(firings.length);
    expect(new Set(started.map((firing) => firing.runId)).size).toBe(started.length);
    expect(new Set(started.map((firing) => firing.sessionId)).size).toBe(started.length);
    const made = await runsOf(started.map((firing) => firing.runId!));
    expect(made.every((run, index) => run.sessionId === started[index]!.sessionId)).toBe(true);
    const sessionsMade = await f.t.database.db
      .select()
      .from(sessions)
      .where(and(eq(sessions.projectId, f.projectId), eq(sessions.title, 'every two seconds'), isNull(sessions.deletedAt)));
    expect(sessionsMade.length).toBeGreaterThanOrEqual(started.length);

    const shown = await f.call('GET', `/schedules/${schedule.id}`);
    expect(shown.status).toBe(200);
    expect(shown.body.nextFirings.length).toBeGreaterThan(0);
    expect(shown.body.recentFirings.length).toBeGreaterThan(0);
    expect(shown.body.recentFirings[0]).toMatchObject({ outcome: 'started' });

    const paused = await f.call('POST', `/schedules/${schedule.id}/pause`);
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({ paused: true, nextFirings: [] });
    expect((await describeSchedule(schedule.id)).state.paused).toBe(true);
    const atPause = (await firingsOf(schedule.id)).length;
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    // A firing Temporal had started just before the pause may still record; none after it.
    const afterPause = (await firingsOf(schedule.id)).length;
    expect(afterPause - atPause).toBeLessThanOrEqual(1);

    const triggered = await f.call('POST', `/schedules/${schedule.id}/trigger`);
    expect(triggered.status, JSON.stringify(triggered.body)).toBe(202);
    await waitForFirings(schedule.id, afterPause + 1);
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect((await firingsOf(schedule.id)).length).toBe(afterPause + 1);

    expect((await f.call('POST', `/schedules/${schedule.id}/unpause`)).status).toBe(200);
    expect((await describeSchedule(schedule.id)).state.paused).toBe(false);
    await waitForFirings(schedule.id, afterPause + 3);

    const deleted = await f.call('DELETE', `/schedules/${schedule.id}`);
    expect(deleted.body).toEqual({ id: schedule.id, deleted: true });
    await expect(describeSchedule(schedule.id)).rejects.toBeInstanceOf(ScheduleNotFoundError);
    expect((await f.call('GET', `/schedules/${schedule.id}`)).status).toBe(404);

    // Every run the schedule made settles, once.
    const all = await firingsOf(schedule.id);
    const runIds = all.map((firing) => firing.runId!).filter(Boolean);
    expect(new Set(runIds).size).toBe(runIds.length);
    for (const runId of runIds) await f.waitForRun(runId);
    expect((await runsOf(runIds)).every((run) => SETTLED.includes(run.state))).toBe(true);
  }, 120_000);
});

describe('overlap', () => {
  it("skip: while a firing's run is running (a slow model), the firings due are skipped; never two runs at once", async () => {
    const fallback = f.fakes.vendor_a.defaultReply;
    f.fakes.vendor_a.defaultReply = () => ({ text: 'a slow report', delayMs: 2_000 });
    try {
      const schedule = await createSchedule({ intervalSeconds: 1, overlap: 'skip' });
      const firings = await waitForFirings(schedule.id, 3, 40_000);
      expect((await f.call('DELETE', `/schedules/${schedule.id}`)).status).toBe(200);
      const made = await runsOf(firings.map((firing) => firing.runId!));
      for (const run of made) await f.waitForRun(run.id);
      const settled = (await runsOf(made.map((run) => run.id))).sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
      // Each run was queued only after the one before it had settled.
      for (let index = 1; index < settled.length; index++)
        expect(settled[index]!.createdAt.getTime()).toBeGreaterThanOrEqual(settled[index - 1]!.settledAt!.getTime());
      // Over two seconds per run on a one-second interval: fewer firings than times due.
      const first = firings[0]!.scheduledAt.getTime();
      const last = firings.at(-1)!.scheduledAt.getTime();
      expect((last - first) / 1000).toBeGreaterThanOrEqual(2 * (firings.length - 1));
    } finally {
      f.fakes.vendor_a.defaultReply = fallback;
    }
  }, 90_000);
});

describe('a schedule that sends turns to one session', () => {
  const lookupOrder = lookupOrderTool;

  /** A session whose run waits for the caller's `lookup_order` result (busy until answered). */
  async function busySession() {
    const agent = await f.call('POST', '/agents', {
      name: `Busy ${Math.random()}`,
      initialConfig: { systemPrompt: 'Answer briefly.', modelPreset: 'fast', tools: [lookupOrder], limits: { maxTurns: 6 } },
    });
    expect(agent.status).toBe(201);
    f.fakes.vendor_a.reply({ toolCalls: [{ name: 'lookup_order', arguments: { orderId: 'A1' } }] });
    const session = await f.call('POST', '/sessions', { agentId: agent.body.id, initialMessage: 'Where is my order?' });
    expect(session.status).toBe(201);
    const runId = session.body.latestRunId as string;
    await f.waitForRun(runId, (run) => run.state === 'waiting_for_tool');
    return { sessionId: session.body.id as string, runId };
  }

  async function answerTool(runId: string) {
    const list = await f.call('GET', `/tool-calls?runId=${runId}`);
    const call = list.body.data.find((item: { status: string }) => item.status === 'pending');
    const claim = await f.call('POST', `/tool-calls/${call.id}/claim`);
    expect(
      (
        await f.call('POST', `/tool-calls/${call.id}/result`, {
          fence: claim.body.fence,
          safeResult: { version: 1, status: 'success', value: { status: 'shipped' } },
        })
      ).status,
    ).toBe(202);
  }

  it('ifBusy enqueue: a firing while the session is busy waits as a pending turn and becomes its next run', async () => {
    const { sessionId, runId } = await busySession();
    const schedule = await createSchedule({ agentId: undefined, target: 'session', sessionId, intervalSeconds: 3600, paused: true });
    expect(schedule).toMatchObject({ target: 'session', ifBusy: 'enqueue', paused: true });
    expect((await f.call('POST', `/schedules/${schedule.id}/trigger`)).status).toBe(202);
    const [enqueued] = await waitForFirings(schedule.id, 1);
    expect(enqueued).toMatchObject({ outcome: 'enqueued', sessionId, runId: null });
    expect(enqueued!.pendingTurnId).not.toBeNull();

    await answerTool(runId);
    // The pending turn became the session's next run; the firing follows it there.
    const followed = await waitFor('the firing to follow its pending turn', async () => (await firingsOf(schedule.id))[0]?.runId ?? null, 30_000);
    const run = await f.waitForRun(followed);
    expect(run).toMatchObject({ sessionId, state: 'completed' });

    // Idle now: the next firing starts a run at once, in the same session.
    expect((await f.call('POST', `/schedules/${schedule.id}/trigger`)).status).toBe(202);
    const both = await waitForFirings(schedule.id, 2);
    expect(both[1]).toMatchObject({ outcome: 'started', sessionId });
    expect((await f.waitForRun(both[1]!.runId!)).sessionId).toBe(sessionId);
    const sessionRuns = await f.t.database.db.select().from(runs).where(eq(runs.sessionId, sessionId));
    expect(sessionRuns.length).toBe(3);
  }, 90_000);

  it('ifBusy skip: a firing while the session is busy is recorded skipped and makes nothing', async () => {
    const { sessionId, runId } = await busySession();
    const schedule = await createSchedule({ agentId: undefined, target: 'session', sessionId, ifBusy: 'skip', cron: '0 0 1 1 *', paused: true });
    expect((await f.call('POST', `/schedules/${schedule.id}/trigger`)).status).toBe(202);
    const [skipped] = await waitForFirings(schedule.id, 1);
    expect(skipped).toMatchObject({ outcome: 'skipped', sessionId, runId: null, pendingTurnId: null });
    expect((await f.t.database.db.select().from(runs).where(eq(runs.sessionId, sessionId))).length).toBe(1);
    await answerTool(runId);
    await f.waitForRun(runId);
  }, 60_000);
});

describe('refusals and the creator', () => {
  const refused = async (body: Record<string, unknown>, apiKey?: string) => {
    const response = await f.call('POST', '/schedules', { message: 'Report.', intervalSeconds: 60, ...body }, apiKey ? { apiKey } : {});
    expect(response.status, JSON.stringify(response.body)).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
    expect(response.body.error).toMatchObject({ code: expect.any(String), message: expect.any(String), requestId: expect.any(String) });
    return response;
  };

  it('answers 400 naming the field for a bad cron, agent references, time zone, target fields or timing', async () => {
    expect((await refused({ agentId, intervalSeconds: undefined, cron: 'every hour' })).body.error.details.path).toBe('body.cron');
    expect((await refused({ agentId, intervalSeconds: undefined, cron: '61 * * * *' })).body.error.message).toContain('minute');
    expect((await refused({ agentId, cron: '0 * * * *' })).body.error.details.path).toBe('body.cron');
    expect((await refused({ agentId, intervalSeconds: undefined })).body.error.details.path).toBe('body.cron');
    expect((await refused({ agentId, intervalSeconds: 0 })).status).toBe(400);
    expect((await refused({})).body.error.details.path).toBe('body.agentId');
    const agent = await f.call('GET', `/agents/${agentId}`);
    expect((await refused({ agentId, agentVersionId: agent.body.latestVersionId })).body.error.details.path).toBe('body.agentId');
    expect((await refused({ agentId, timeZone: 'Mars/Olympus' })).body.error.details.path).toBe('body.timeZone');
    expect((await refused({ agentId, timeZone: '+01:00' })).status).toBe(400);
    expect((await refused({ agentId, sessionId: agentId })).body.error.details.path).toBe('body.sessionId');
    expect((await refused({ agentId, target: 'session' })).body.error.details.path).toBe('body.sessionId');
    expect((await refused({ agentId, catchupWindowSeconds: 5 })).body.error.details.path).toBe('body.catchupWindowSeconds');
    expect((await refused({ agentId, overlap: 'cancel_other' })).body.error.details.path).toBe('body.overlap');
    expect((await refused({ agentId: '00000000-0000-4000-8000-000000000000' })).body.error.details.path).toBe('body.agentId');
    expect((await refused({ agentId, files: [{ uploadId: '00000000-0000-4000-8000-000000000000' }] })).body.error.details.path).toBe('body.files.0.uploadId');
  });

  it('answers 403 to a caller without the scopes a firing needs', async () => {
    const readOnly = (await f.t.createApiKey(['schedule:read'], 'schedule reader')).secret;
    expect((await refused({ agentId }, readOnly)).status).toBe(403);
    expect((await f.call('GET', '/schedules', undefined, { apiKey: readOnly })).status).toBe(200);
    const noRun = (await f.t.createApiKey(['schedule:write', 'session:write'], 'no run:create')).secret;
    expect((await refused({ agentId }, noRun)).status).toBe(403);
    const noSession = (await f.t.createApiKey(['schedule:write', 'run:create'], 'no session:write')).secret;
    const response = await refused({ agentId }, noSession);
    expect(response.status).toBe(403);
    expect(response.body.error.details.missingScopes).toEqual(['session:write']);
  });

  it('a schedule created by a person (a browser session) fires as that person', async () => {
    const { cookie } = await f.t.login();
    const created = await f.t.request('POST', `/v1/projects/${f.projectId}/schedules`, {
      cookie,
      body: { agentId, message: 'Report.', intervalSeconds: 3600, paused: true },
    });
    expect(created.status).toBe(201);
    const schedule = await created.json();
    expect((await f.call('POST', `/schedules/${schedule.id}/trigger`)).status).toBe(202);
    const [firing] = await waitForFirings(schedule.id, 1);
    expect(firing).toMatchObject({ outcome: 'started' });
    const [run] = await runsOf([firing!.runId!]);
    expect(run!.createdByPrincipalId).toBe(schedule.createdByPrincipalId);
    await f.waitForRun(run!.id);
  });

  it('a firing whose creator key was revoked is recorded failed `forbidden` and makes no run', async () => {
    const creator = await f.t.createApiKey(['schedule:read', 'schedule:write', 'run:create', 'session:write'], 'schedule creator');
    const created = await f.call('POST', '/schedules', { agentId, message: 'Report.', intervalSeconds: 3600, paused: true }, { apiKey: creator.secret });
    expect(created.status).toBe(201);
    const { cookie } = await f.t.login();
    expect((await f.t.request('DELETE', `/v1/projects/${f.projectId}/api-keys/${creator.id}`, { cookie })).status).toBe(200);
    expect((await f.call('POST', `/schedules/${created.body.id}/trigger`)).status).toBe(202);
    const [firing] = await waitForFirings(created.body.id, 1);
    expect(firing).toMatchObject({ outcome: 'failed', errorCode: 'forbidden', runId: null, sessionId: null });
    const shown = await f.call('GET', `/schedules/${created.body.id}`);
    expect(shown.body.recentFirings[0]).toMatchObject({ outcome: 'failed', errorCode: 'forbidden', errorMessage: expect.stringContaining('acting principal') });
  });
});

describe('the acting principal (issue 45)', () => {
  /** A key that may write schedules and fire them, and nothing more (no `mcp:execute`, no delegation scopes). */
  const lowerKey = (name: string) => f.t.createApiKey(['schedule:read', 'schedule:write', 'run:create', 'session:write', 'session:read', 'run:read'], name);
  const triggerAndWait = async (scheduleId: string, count: number) => {
    // A firing is named by its scheduled time to the second: each trigger in a second of its own.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect((await f.call('POST', `/schedules/${scheduleId}/trigger`)).status).toBe(202);
    return (await waitForFirings(scheduleId, count))[count - 1]!;
  };

  it('"run now" needs what creating the schedule needs: a key without session:write cannot trigger a new_session schedule', async () => {
    const schedule = await createSchedule({ intervalSeconds: 3600, paused: true });
    const noSession = (await f.t.createApiKey(['schedule:write', 'run:create'], 'trigger without session:write')).secret;
    const refused = await f.call('POST', `/schedules/${schedule.id}/trigger`, undefined, { apiKey: noSession });
    expect(refused.status, JSON.stringify(refused.body)).toBe(403);
    expect(refused.body.error.details.missingScopes).toEqual(['session:write']);
    // Nothing reached Temporal: the next (allowed) trigger is the schedule's first and only firing.
    const firing = await triggerAndWait(schedule.id, 1);
    expect(firing.outcome).toBe('started');
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(await firingsOf(schedule.id)).toHaveLength(1);
    await f.waitForRun(firing.runId!);
  });

  it("a lower key that changes what an owner's schedule does cannot widen: the firings then act as the lower key", async () => {
    const schedule = (await createSchedule({ intervalSeconds: 3600, paused: true })) as Record<string, any>;
    const owner = schedule.createdByPrincipalId as string;
    expect(schedule.actingPrincipalId).toBe(owner);
    const lower = await lowerKey('lower schedule editor');

    // Only when it fires: the owner still acts.
    const renamed = await f.call(
      'PATCH',
      `/schedules/${schedule.id}`,
      { name: 'renamed by the lower key', intervalSeconds: 7200, overlap: 'allow_all' },
      { apiKey: lower.secret },
    );
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(renamed.body).toMatchObject({ createdByPrincipalId: owner, actingPrincipalId: owner });
    // The message is what it does: the lower key takes the schedule over.
    const changed = await f.call('PATCH', `/schedules/${schedule.id}`, { message: 'Do what the lower key says.' }, { apiKey: lower.secret });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    const lowerPrincipal = changed.body.actingPrincipalId as string;
    expect(lowerPrincipal).not.toBe(owner);
    expect(changed.body.createdByPrincipalId).toBe(owner);
    expect((await f.call('GET', `/schedules/${schedule.id}`)).body.actingPrincipalId).toBe(lowerPrincipal);
    // The audit trail says whose authority the change replaced; the rename replaced none.
    const audits = await f.t.database.db
      .select()
      .from(auditEntries)
      .where(and(eq(auditEntries.targetId, schedule.id), eq(auditEntries.action, 'schedule.updated')));
    expect(
      audits.map((entry) => [entry.principalId, entry.details.fields, entry.details.actingPrincipalId, entry.details.previousActingPrincipalId]).sort(),
    ).toEqual(
      [
        [lowerPrincipal, ['intervalSeconds', 'name', 'overlap'], owner, undefined],
        [lowerPrincipal, ['message'], lowerPrincipal, owner],
      ].sort(),
    );

    // The owner triggers it: the run is the lower key's (so every check of "the run's creator",
    // MCP `mcp:execute` and delegation, sees the lower key, which holds neither).
    const firing = await triggerAndWait(schedule.id, 1);
    expect(firing).toMatchObject({ outcome: 'started' });
    const [run] = await runsOf([firing.runId!]);
    expect(run!.createdByPrincipalId).toBe(lowerPrincipal);
    await f.waitForRun(run!.id);

    // The lower key's authority is all it has: once revoked, the firing is refused although the owner could.
    expect((await f.call('DELETE', `/api-keys/${lower.id}`)).status).toBe(200);
    const refused = await triggerAndWait(schedule.id, 2);
    expect(refused).toMatchObject({ outcome: 'failed', errorCode: 'forbidden', runId: null, sessionId: null });
  });

  it("an owner changing a lower key's schedule works, and its firings then act as the owner", async () => {
    const lower = await lowerKey('lower schedule creator');
    const created = await f.call('POST', '/schedules', { agentId, message: 'Report.', intervalSeconds: 3600, paused: true }, { apiKey: lower.secret });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const lowerPrincipal = created.body.createdByPrincipalId as string;
    expect(created.body.actingPrincipalId).toBe(lowerPrincipal);

    const ownerAgent = await f.call('POST', '/agents', {
      name: `Owner's ${randomUUID().slice(0, 6)}`,
      initialConfig: { systemPrompt: 'Answer briefly.', modelPreset: 'fast', limits: { maxTurns: 4 } },
    });
    const changed = await f.call('PATCH', `/schedules/${created.body.id}`, { agentId: ownerAgent.body.id, message: "The owner's report." });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    const ownerPrincipal = changed.body.actingPrincipalId as string;
    expect(ownerPrincipal).not.toBe(lowerPrincipal);
    expect(changed.body.createdByPrincipalId).toBe(lowerPrincipal);

    // The creator's key is revoked: the schedule fires all the same, as the owner.
    expect((await f.call('DELETE', `/api-keys/${lower.id}`)).status).toBe(200);
    const firing = await triggerAndWait(created.body.id, 1);
    expect(firing).toMatchObject({ outcome: 'started' });
    const [run] = await runsOf([firing.runId!]);
    expect(run!.createdByPrincipalId).toBe(ownerPrincipal);
    await f.waitForRun(run!.id);
  });
});

describe('changes reach the Temporal Schedule', () => {
  it('a sync that was lost is redone by the reconciler; a Temporal Schedule lost by hand is created again by a trigger', async () => {
    const schedule = await createSchedule({ intervalSeconds: 3600, paused: true });
    await waitFor('the Temporal Schedule', () => describeSchedule(schedule.id).catch(() => null), 30_000);
    // As if the after-commit sync of a change had never happened (the API died, Temporal was out of reach).
    await temporal.schedule.getHandle(temporalScheduleId(schedule.id)).delete();
    await f.t.database.db
      .update(schedulesTable)
      .set({ temporalRevision: null, updatedAt: new Date(Date.now() - 60_000) })
      .where(eq(schedulesTable.id, schedule.id));
    const recreated = await waitFor('the reconciler to create it again', () => describeSchedule(schedule.id).catch(() => null), 30_000);
    expect(recreated.state.paused).toBe(true);

    // Lost by hand while the row says it is in line: "run now" creates it again, then fires.
    await temporal.schedule.getHandle(temporalScheduleId(schedule.id)).delete();
    expect((await f.call('POST', `/schedules/${schedule.id}/trigger`)).status).toBe(202);
    const [firing] = await waitForFirings(schedule.id, 1);
    expect(firing).toMatchObject({ outcome: 'started' });
    expect((await describeSchedule(schedule.id)).state.paused).toBe(true);
    await f.waitForRun(firing!.runId!);
    expect((await f.call('DELETE', `/schedules/${schedule.id}`)).status).toBe(200);
  });

  it('a firing whose schedule row is gone (its project was deleted) makes nothing and removes the orphaned Temporal Schedule', async () => {
    const schedule = await createSchedule({ intervalSeconds: 3600, paused: true });
    await waitFor('the Temporal Schedule', () => describeSchedule(schedule.id).catch(() => null), 30_000);
    await f.t.database.db.delete(schedulesTable).where(eq(schedulesTable.id, schedule.id));
    await temporal.schedule.getHandle(temporalScheduleId(schedule.id)).trigger();
    await waitFor(
      'the orphan to be removed',
      () =>
        describeSchedule(schedule.id).then(
          () => null,
          (error: unknown) => error instanceof ScheduleNotFoundError,
        ),
      30_000,
    );
    expect(await firingsOf(schedule.id)).toEqual([]);
  });

  it('a cron expression in a time zone, then PATCH to another timing and overlap', async () => {
    const schedule = await createSchedule({ intervalSeconds: undefined, cron: '30 9 * * MON-FRI', timeZone: 'europe/paris', overlap: 'buffer_one' });
    expect(schedule).toMatchObject({ cron: '30 9 * * MON-FRI', timeZone: 'Europe/Paris', intervalSeconds: null });
    const shown = await waitFor(
      'the next firings',
      async () => {
        const read = await f.call('GET', `/schedules/${schedule.id}`);
        return read.body.nextFirings.length > 0 ? read.body : null;
      },
      30_000,
    );
    const local = new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Paris', weekday: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
    for (const at of shown.nextFirings as string[]) expect(local.format(new Date(at))).toMatch(/^(Mon|Tue|Wed|Thu|Fri),? 09:30$/);
    expect((await describeSchedule(schedule.id)).policies.overlap).toBe('BUFFER_ONE');

    const changed = await f.call('PATCH', `/schedules/${schedule.id}`, { intervalSeconds: 3600, overlap: 'skip', name: 'hourly' });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.body).toMatchObject({ cron: null, intervalSeconds: 3600, overlap: 'skip', name: 'hourly' });
    const described = await describeSchedule(schedule.id);
    expect(described.policies.overlap).toBe('SKIP');
    for (const at of described.info.nextActionTimes) expect(at.getTime() % 3_600_000).toBe(0);
    expect((await f.call('PATCH', `/schedules/${schedule.id}`, { cron: '0 * * * *', intervalSeconds: 60 })).status).toBe(400);
    expect((await f.call('DELETE', `/schedules/${schedule.id}`)).status).toBe(200);
  });
});

describe('files', () => {
  it('attaches the same uploads at each firing; an expiring upload is refused; a deleted one fails the firing', async () => {
    const server = inject('s3');
    const bucket = `svc-schedules-${randomUUID().slice(0, 8)}`;
    const s3 = new S3Client({
      endpoint: server.endpoint,
      region: server.region,
      forcePathStyle: true,
      credentials: { accessKeyId: server.accessKeyId, secretAccessKey: server.secretAccessKey },
    });
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    s3.destroy();
    const storage = await f.call('POST', '/storage-providers', {
      key: 'files',
      displayName: 'Files',
      providerType: 's3',
      endpoint: server.endpoint,
      region: server.region,
      bucket,
      prefix: null,
      forcePathStyle: true,
      accessKeyId: server.accessKeyId,
      secretAccessKey: server.secretAccessKey,
      setDefault: true,
    });
    expect(storage.status, JSON.stringify(storage.body)).toBe(201);
    const sandboxProvider = await f.call('POST', '/sandbox-providers', {
      key: 'local',
      displayName: 'Local',
      providerType: 'sandbox_vendor',
      apiKey: 'local-key',
    });
    const snapshotId = (await f.call('GET', `/sandbox-providers/${sandboxProvider.body.id}/snapshots`)).body.data[0].id;
    const reader = await f.call('POST', '/agents', {
      name: 'Reader',
      initialConfig: {
        systemPrompt: 'Read the brief.',
        modelPreset: 'fast',
        limits: { maxTurns: 4 },
        sandbox: { enabled: true, provider: 'local', snapshotId, network: 'none', capabilities: ['filesystem_read'] },
      },
    });
    expect(reader.status, JSON.stringify(reader.body)).toBe(201);

    const file = { name: 'brief.txt', contentType: 'text/plain', dataBase64: Buffer.from('Summarize the week.\n').toString('base64') };
    const upload = await f.call('POST', '/uploads', file);
    expect(upload.status, JSON.stringify(upload.body)).toBe(201);
    const expiring = await f.call('POST', '/uploads', { ...file, expiresInSeconds: 3600 });
    const refused = await f.call('POST', '/schedules', {
      agentId: reader.body.id,
      message: 'Read it.',
      intervalSeconds: 3600,
      files: [{ uploadId: expiring.body.id }],
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details.path).toBe('body.files.0.uploadId');

    const schedule = await createSchedule({
      agentId: reader.body.id,
      message: 'Read it.',
      intervalSeconds: 3600,
      files: [{ uploadId: upload.body.id }],
      paused: true,
    });
    expect((await f.call('POST', `/schedules/${schedule.id}/trigger`)).status).toBe(202);
    const [started] = await waitForFirings(schedule.id, 1);
    expect(started).toMatchObject({ outcome: 'started' });
    const attached = await f.t.database.db.select().from(attachments).where(eq(attachments.runId, started!.runId!));
    expect(attached.map((row) => [row.filename, row.sizeBytes])).toEqual([['brief.txt', 20]]);

    // Deleted uploads are not there for the next firing: it fails, naming the file, and makes nothing.
    expect((await f.call('DELETE', `/uploads/${upload.body.id}`)).status).toBe(200);
    // A firing is named by its time to the second: the next trigger is in another second.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect((await f.call('POST', `/schedules/${schedule.id}/trigger`)).status).toBe(202);
    const both = await waitForFirings(schedule.id, 2);
    expect(both[1]).toMatchObject({ outcome: 'failed', errorCode: 'bad_request', runId: null, sessionId: null });
    expect(both[1]!.errorExplanation).toContain('files.0.uploadId');
    await f.waitForRun(started!.runId!, undefined, 90_000);
    expect((await f.call('DELETE', `/schedules/${schedule.id}`)).status).toBe(200);
  }, 120_000);
});

describe('memory stores (issue 48)', () => {
  const store = async (name: string) => {
    const created = await f.call('POST', '/memory-stores', { name: `${name} ${randomUUID().slice(0, 6)}` });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body as { id: string; name: string };
  };
  const trigger = async (scheduleId: string, count: number) => {
    // A firing is named by its scheduled time to the second: each trigger in a second of its own.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect((await f.call('POST', `/schedules/${scheduleId}/trigger`)).status).toBe(202);
    return (await waitForFirings(scheduleId, count))[count - 1]!;
  };

  it('a new_session schedule takes memoryStores as POST /sessions does and shows them; a session target or a bad store is refused naming the field', async () => {
    const notes = await store('Schedule notes');
    const created = await createSchedule({ intervalSeconds: 3600, paused: true, memoryStores: [{ storeId: notes.id, instructions: 'One file per day.' }] });
    expect((created as Record<string, unknown>).memoryStores).toEqual([{ storeId: notes.id, access: 'read_write', instructions: 'One file per day.' }]);
    expect((await f.call('GET', `/schedules/${created.id}`)).body.memoryStores).toEqual([
      { storeId: notes.id, access: 'read_write', instructions: 'One file per day.' },
    ]);
    expect(((await createSchedule({ intervalSeconds: 3600, paused: true })) as Record<string, unknown>).memoryStores).toEqual([]);

    const refused = async (body: Record<string, unknown>, status: number, path: string, method: 'POST' | 'PATCH' = 'POST') => {
      const answer =
        method === 'POST'
          ? await f.call('POST', '/schedules', { agentId, message: 'Report.', intervalSeconds: 3600, ...body })
          : await f.call('PATCH', `/schedules/${created.id}`, body);
      expect(answer.status, JSON.stringify(answer.body)).toBe(status);
      expect(answer.body.error.details.path).toBe(path);
    };
    const idle = await f.call('POST', '/sessions', { agentId });
    await refused({ agentId: undefined, target: 'session', sessionId: idle.body.id, memoryStores: [{ storeId: notes.id }] }, 400, 'body.memoryStores');
    await refused({ memoryStores: [{ storeId: randomUUID() }] }, 404, 'body.memoryStores.0.storeId');
    await refused({ memoryStores: [{ storeId: notes.id }, { storeId: notes.id }] }, 400, 'body.memoryStores');
    await refused({ memoryStores: [{ storeId: notes.id, access: 'write' }] }, 400, 'body.memoryStores.0.access');
    const archived = await store('Archived notes');
    await f.call('POST', `/memory-stores/${archived.id}/archive`);
    await refused({ memoryStores: [{ storeId: archived.id }] }, 409, 'body.memoryStores.0.storeId');
    await refused({ memoryStores: [{ storeId: randomUUID() }] }, 404, 'body.memoryStores.0.storeId', 'PATCH');
    await refused({ target: 'session', sessionId: idle.body.id, memoryStores: [{ storeId: notes.id }] }, 400, 'body.memoryStores', 'PATCH');

    // An archived store attaches read_only; moving the schedule to a session forgets its stores.
    const patched = await f.call('PATCH', `/schedules/${created.id}`, { memoryStores: [{ storeId: archived.id, access: 'read_only' }] });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.memoryStores).toEqual([{ storeId: archived.id, access: 'read_only', instructions: null }]);
    const moved = await f.call('PATCH', `/schedules/${created.id}`, { target: 'session', sessionId: idle.body.id });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(moved.body.memoryStores).toEqual([]);
    expect((await f.call('DELETE', `/schedules/${created.id}`)).status).toBe(200);
  });

  it('changing memoryStores changes what the schedule does: the caller becomes its acting principal (by value: the same list takes nothing over)', async () => {
    const notes = await store('Acting notes');
    const schedule = (await createSchedule({ intervalSeconds: 3600, paused: true, memoryStores: [{ storeId: notes.id }] })) as Record<string, any>;
    const owner = schedule.actingPrincipalId as string;
    const lower = await f.t.createApiKey(['schedule:read', 'schedule:write', 'run:create', 'session:write'], 'memory schedule editor');
    const same = await f.call('PATCH', `/schedules/${schedule.id}`, { memoryStores: [{ storeId: notes.id, access: 'read_write' }] }, { apiKey: lower.secret });
    expect(same.status, JSON.stringify(same.body)).toBe(200);
    expect(same.body.actingPrincipalId).toBe(owner);
    const readOnly = await f.call(
      'PATCH',
      `/schedules/${schedule.id}`,
      { memoryStores: [{ storeId: notes.id, access: 'read_only' }] },
      { apiKey: lower.secret },
    );
    expect(readOnly.status, JSON.stringify(readOnly.body)).toBe(200);
    expect(readOnly.body.actingPrincipalId).not.toBe(owner);
    expect((await f.call('DELETE', `/schedules/${schedule.id}`)).status).toBe(200);
  });

  it("each firing's session attaches the stores; a store archived (read_write) or deleted since fails that firing and makes nothing", async () => {
    const notes = await store('Firing notes');
    const schedule = await createSchedule({
      intervalSeconds: 3600,
      paused: true,
      memoryStores: [{ storeId: notes.id, access: 'read_write', instructions: 'Keep a log.' }],
    });
    const started = await trigger(schedule.id, 1);
    expect(started).toMatchObject({ outcome: 'started' });
    const session = (await f.call('GET', `/sessions/${started.sessionId}`)).body;
    expect(session.memoryStores).toEqual([expect.objectContaining({ storeId: notes.id, name: notes.name, access: 'read_write', instructions: 'Keep a log.' })]);
    const [row] = await f.t.database.db.select().from(sessions).where(eq(sessions.id, started.sessionId!));
    expect(row!.memoryStores.map((attached) => attached.storeId)).toEqual([notes.id]);
    await f.waitForRun(started.runId!);

    // Archived since: a read_write attachment is refused as POST /sessions refuses it.
    expect((await f.call('POST', `/memory-stores/${notes.id}/archive`)).status).toBe(200);
    const archived = await trigger(schedule.id, 2);
    expect(archived).toMatchObject({ outcome: 'failed', errorCode: 'conflict', runId: null, sessionId: null });
    expect(archived.errorExplanation).toContain('memoryStores.0.storeId');

    // Deleted since: not found, and the firing says which store.
    expect((await f.call('DELETE', `/memory-stores/${notes.id}`)).status).toBe(200);
    const deleted = await trigger(schedule.id, 3);
    expect(deleted).toMatchObject({ outcome: 'failed', errorCode: 'not_found', runId: null, sessionId: null });
    expect(deleted.errorExplanation).toBe('Memory store not found (memoryStores.0.storeId)');
    const shown = await f.call('GET', `/schedules/${schedule.id}`);
    expect(shown.body.recentFirings[0]).toMatchObject({
      outcome: 'failed',
      errorCode: 'not_found',
      errorMessage: 'Memory store not found (memoryStores.0.storeId)',
    });
    expect((await f.call('DELETE', `/schedules/${schedule.id}`)).status).toBe(200);
  }, 90_000);
});
