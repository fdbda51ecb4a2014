import { eq } from 'drizzle-orm';
import { temporal } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projects } from '../../db/schema/index.ts';
import { runWorkflowId } from '../../domain/runs/workflow.ts';
import { RUN_GONE_RESULT } from '../../workflows/run.ts';
import { lookupOrderTool } from '../support/platform-tools.ts';
import { startRunApp } from '../support/run-app.ts';

/**
 * Permanent failures stop (docs/decisions/failure-classification.md): when a run's project is
 * deleted mid-run, its workflow finds the run gone and closes within seconds, whatever it was
 * doing, instead of retrying a step that can never succeed.
 */
let f: Awaited<ReturnType<typeof startRunApp>>;
let admin: string;

beforeAll(async () => {
  f = await startRunApp();
  admin = (await f.t.createApiKey(['*'], 'project admin')).secret;
}, 120_000);
afterAll(() => f?.close());

/** A fresh project with the `fast` preset and an agent with a caller tool; returns a started run. */
async function runInNewProject(initialMessage: string) {
  const request = async (method: string, path: string, body?: unknown) => {
    const response = await f.t.request(method, `/v1${path}`, { apiKey: admin, body });
    return { status: response.status, body: await response.json() };
  };
  const project = await request('POST', '/projects', { slug: `doomed-${Math.random().toString(36).slice(2, 10)}`, name: 'Doomed' });
  expect(project.status).toBe(201);
  const base = `/projects/${project.body.id}`;
  const [provider] = (await request('GET', `${base}/model-providers`)).body.data;
  expect(
    (await request('POST', `${base}/model-presets`, { key: 'fast', displayName: 'Fast', providerId: provider.id, model: 'vendor_a/gpt-5.1', routing: {} }))
      .status,
  ).toBe(201);
  const agent = await request('POST', `${base}/agents`, {
    name: 'Doomed agent',
    initialConfig: { systemPrompt: 'Use tools.', modelPreset: 'fast', tools: [lookupOrderTool], limits: { maxTurns: 4 } },
  });
  expect(agent.status, JSON.stringify(agent.body)).toBe(201);
  const session = await request('POST', `${base}/sessions`, { agentId: agent.body.id, initialMessage });
  expect(session.status).toBe(201);
  const runId = session.body.latestRunId as string;
  const runState = async () => (await request('GET', `${base}/runs/${runId}`)).body.state as string;
  return { projectId: project.body.id as string, runId, runState, deleteProject: () => request('DELETE', base) };
}

/**
 * Waits for `run:<runId>` to close; returns its status, result and history. What would keep it
 * open otherwise (a caller tool nobody answers, a model answering in minutes) outlasts the wait.
 */
async function workflowClosure(runId: string, timeoutMs = 60_000) {
  const handle = f.runtime.client.client.workflow.getHandle(runWorkflowId(runId));
  const started = Date.now();
  for (;;) {
    const description = await handle.describe();
    if (description.status.name !== 'RUNNING') {
      const history = await handle.fetchHistory();
      return { status: description.status.name, result: await handle.result(), events: history.events ?? [] };
    }
    if (Date.now() - started > timeoutMs) throw new Error(`run:${runId} is still running after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** No step was retried: every activity ran once, a failed one as non-retryable, and no workflow task failed. */
function expectNoRetries(events: Awaited<ReturnType<typeof workflowClosure>>['events']) {
  expect(events.filter((event) => event.workflowTaskFailedEventAttributes || event.activityTaskTimedOutEventAttributes)).toEqual([]);
  const retryStates = events.flatMap((event) => (event.activityTaskFailedEventAttributes ? [event.activityTaskFailedEventAttributes.retryState] : []));
  expect(retryStates.every((state) => state === temporal.api.enums.v1.RetryState.RETRY_STATE_NON_RETRYABLE_FAILURE)).toBe(true);
  expect(events.filter((event) => (event.activityTaskStartedEventAttributes?.attempt ?? 1) > 1)).toEqual([]);
  expect(events.length).toBeLessThan(60);
}

describe('a run whose project is deleted', () => {
  it('while it waits for a caller tool: the workflow closes', async () => {
    f.fakes.vendor_a.reply({ toolCalls: [{ name: 'lookup_order', arguments: { orderId: 'A1' } }] });
    const run = await runInNewProject('Where is A1?');
    await until(async () => (await run.runState()) === 'waiting_for_tool', 'the run to wait for its tool');

    expect((await run.deleteProject()).status).toBe(200);
    const closure = await workflowClosure(run.runId);
    expect(closure).toMatchObject({ status: 'COMPLETED', result: RUN_GONE_RESULT });
    expectNoRetries(closure.events);
  }, 90_000);

  it('while a model call is in flight: the call is abandoned and the workflow closes', async () => {
    const requestsBefore = f.fakes.vendor_a.requests.length;
    // Answered long after the closure's wait gives up: only an abandoned call closes it in time.
    f.fakes.vendor_a.reply({ text: 'too late', delayMs: 600_000 });
    const run = await runInNewProject('Take your time.');
    await until(async () => f.fakes.vendor_a.requests.length > requestsBefore, 'the model call to start');

    expect((await run.deleteProject()).status).toBe(200);
    const closure = await workflowClosure(run.runId);
    expect(closure).toMatchObject({ status: 'COMPLETED', result: RUN_GONE_RESULT });
    expectNoRetries(closure.events);
  }, 90_000);

  it('even when the stop signal is lost: the next step finds the run gone and does not retry', async () => {
    const requestsBefore = f.fakes.vendor_a.requests.length;
    f.fakes.vendor_a.reply({ text: 'answered after the project went away', delayMs: 1_500 });
    const run = await runInNewProject('Answer slowly.');
    await until(async () => f.fakes.vendor_a.requests.length > requestsBefore, 'the model call to start');

    // Straight in the database: no after-commit signal reaches the workflow.
    await f.t.database.db.delete(projects).where(eq(projects.id, run.projectId));
    const closure = await workflowClosure(run.runId);
    expect(closure).toMatchObject({ status: 'COMPLETED', result: RUN_GONE_RESULT });
    expectNoRetries(closure.events);
  }, 90_000);
});
