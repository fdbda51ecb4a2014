import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runs } from '../../db/schema/index.ts';
import { manualClock } from '../support/app.ts';
import { lookupOrderTool } from '../support/platform-tools.ts';
import { startRunApp } from '../support/run-app.ts';

/** Deadlines end to end: the wall-time ceiling and caller-tool leases. */
const clock = manualClock(new Date());
let f: Awaited<ReturnType<typeof startRunApp>>;

const lookup = lookupOrderTool;

beforeAll(async () => {
  f = await startRunApp({ clock });
  clock.advance(1000);
}, 120_000);
afterAll(() => f?.close());

async function agentWith(limits: Record<string, number>, tools: unknown[] = []) {
  const agent = await f.call('POST', '/agents', {
    name: `Deadlines ${Math.random()}`,
    initialConfig: { systemPrompt: 'Wait.', modelPreset: 'fast', tools, limits },
  });
  expect(agent.status).toBe(201);
  return agent.body.id as string;
}

describe('deadlines', () => {
  it('the wall-time ceiling settles the run timed_out even with execution time left', async () => {
    f.fakes.vendor_a.reply({ text: 'never seen', delayMs: 30_000 });
    const agentId = await agentWith({ maxTurns: 2, timeoutMs: 3_600_000 });
    const live = f.starter.target;
    f.starter.target = null; // hold the start while the stored ceiling is shortened
    const session = await f.call('POST', '/sessions', { agentId, initialMessage: 'Slow.' });
    const runId = session.body.latestRunId as string;
    // The ceiling is stored with the run (48 h for every new submission); bring it close.
    await f.t.database.db
      .update(runs)
      .set({ wallDeadlineAt: new Date(Date.now() + 2000) })
      .where(eq(runs.id, runId));
    f.starter.target = live;
    await live!.start({ runId, projectId: session.body.projectId, sessionId: session.body.id, agentId });
    const run = await f.waitForRun(runId);
    expect(run.state).toBe('timed_out');
    expect(run.failure.errorCode).toBe('run_timed_out');
  }, 60_000);

  it('a claimed caller tool whose lease runs out becomes tool_expired and the model is told', async () => {
    f.fakes.vendor_a.reply({ toolCalls: [{ name: 'lookup_order', arguments: { orderId: 'E5' } }] }).reply({ text: 'The lookup timed out.' });
    const agentId = await agentWith({ maxTurns: 4 }, [lookup]);
    const session = await f.call('POST', '/sessions', { agentId, initialMessage: 'Where is E5?' });
    const runId = session.body.latestRunId as string;
    await f.waitForRun(runId, (run) => run.state === 'waiting_for_tool');
    const [call] = (await f.call('GET', `/tool-calls?runId=${runId}`)).body.data;
    const claim = await f.call('POST', `/tool-calls/${call.id}/claim`);
    expect(claim.status).toBe(200);
    clock.advance(6 * 60 * 1000); // past the 5-minute lease
    // In production the lease deadline is a workflow timer; the clock moved here, so wake it.
    await f.starter.notify(runId, 'toolResultSubmitted');
    const run = await f.waitForRun(runId);
    expect(run.state).toBe('completed');
    const calls = (await f.call('GET', `/tool-calls?runId=${runId}`)).body.data;
    expect(calls[0]).toMatchObject({ status: 'expired' });
    expect(JSON.stringify(f.fakes.vendor_a.requests.at(-1)!.body)).toContain('tool_expired');
    const late = await f.call('POST', `/tool-calls/${call.id}/result`, {
      fence: claim.body.fence,
      safeResult: { version: 1, status: 'success', value: { status: 'late' } },
    });
    expect(late.status).toBe(409);
  }, 60_000);
});
