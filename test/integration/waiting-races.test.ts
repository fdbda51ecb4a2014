import { eq } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { waitingEventsOf } from '../support/stored-rows.ts';
import { toolCalls } from '../../db/schema/index.ts';
import { startRunApp } from '../support/run-app.ts';

/**
 * Issue 45 item 10: a caller that answers a tool call the moment it is recorded answers it before
 * the run has moved into `waiting_for_tool`. The run must then go on without waiting (no
 * `run.waiting_*` event with an empty `waitingOn`, no `requires_action` idle naming nothing), and
 * settle. Each case answers 20 runs in a row as fast as it can: before the fix most of them
 * entered the wait with nothing to wait on. Through the Anthropic-compatible API's
 * SessionToolRunner: compat/anthropic/test/waiting-races.test.ts.
 */
let f: Awaited<ReturnType<typeof startRunApp>>;
const TRIES = 20;

beforeAll(async () => {
  f = await startRunApp();
}, 120_000);
afterAll(async () => {
  await f?.close();
});

const lookupOrder = {
  name: 'lookup_order',
  description: 'Looks up an order',
  owner: 'caller',
  approval: 'never',
  inputSchema: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'], additionalProperties: false },
  outputSchema: { type: 'object', properties: { status: { type: 'string' } }, required: ['status'] },
};

describe('a caller tool answered before the run waits for it', () => {
  it(`through the native API: claimed and answered the moment it is recorded, ${TRIES} times in a row`, async (context) => {
    const holder = runHolder(context);
    const agentId = await createAgent('Fast native answers', lookupOrder);
    const outcomes = [];
    for (let attempt = 0; attempt < TRIES; attempt++) {
      f.fakes.vendor_a.reply({ toolCalls: [{ name: 'lookup_order', arguments: { orderId: 'A1' } }] }).reply({ text: 'Order A1 has shipped.' });
      const runId = await startSession(agentId);
      const callId = await firstCallOf(runId);
      const stateWhenAnswered = await holder.answerHolding(runId, () => answer(callId));
      const run = await f.waitForRun(runId);
      outcomes.push({ attempt, stateWhenAnswered, state: run.state, waits: await waitingEventsOf(f.t.database.db, runId) });
    }
    expectEveryRunWentOn(outcomes);
  }, 300_000);

  it('through the native API: an approval decided the moment it is asked for, then the tool answered', async (context) => {
    const holder = runHolder(context);
    const agentId = await createAgent('Fast approvals', { ...lookupOrder, approval: 'always' });
    const outcomes = [];
    for (let attempt = 0; attempt < 5; attempt++) {
      f.fakes.vendor_a.reply({ toolCalls: [{ name: 'lookup_order', arguments: { orderId: 'A1' } }] }).reply({ text: 'Order A1 has shipped.' });
      const runId = await startSession(agentId);
      const callId = await firstCallOf(runId);
      const stateWhenAnswered = await holder.answerHolding(runId, async () => {
        const [approval] = (await f.call('GET', `/approvals?runId=${runId}`)).body.data;
        expect((await f.call('POST', `/approvals/${approval.id}/decision`, { status: 'approved' })).status).toBe(200);
      });
      // The approved call now waits for its caller, and names it.
      await f.waitForRun(runId, (run) => run.state === 'waiting_for_tool');
      await answer(callId);
      const run = await f.waitForRun(runId);
      const waits = await waitingEventsOf(f.t.database.db, runId);
      expect(waits.at(-1)).toEqual({ kind: 'run.waiting_for_tool', toolCallIds: [callId] });
      outcomes.push({ attempt, stateWhenAnswered, state: run.state, waits });
    }
    expectEveryRunWentOn(outcomes);
  }, 120_000);
});

async function createAgent(name: string, tool: unknown): Promise<string> {
  const agent = await f.call('POST', '/agents', {
    name,
    initialConfig: { systemPrompt: 'Use tools.', modelPreset: 'fast', tools: [tool], limits: { maxTurns: 4 } },
  });
  expect(agent.status, JSON.stringify(agent.body)).toBe(201);
  return agent.body.id;
}

async function startSession(agentId: string): Promise<string> {
  const session = await f.call('POST', '/sessions', { agentId, initialMessage: 'Where is A1?' });
  expect(session.status).toBe(201);
  return session.body.latestRunId;
}

/** The caller watches the table the API reads, to act the moment the run's call is committed. */
async function firstCallOf(runId: string): Promise<string> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const [call] = await f.t.database.db.select({ id: toolCalls.id }).from(toolCalls).where(eq(toolCalls.runId, runId));
    if (call) return call.id;
    if (Date.now() > deadline) throw new Error(`run ${runId} never recorded its tool call`);
  }
}

async function answer(callId: string) {
  const claim = await f.call('POST', `/tool-calls/${callId}/claim`);
  expect(claim.status, JSON.stringify(claim.body)).toBe(200);
  const result = await f.call('POST', `/tool-calls/${callId}/result`, {
    fence: claim.body.fence,
    safeResult: { version: 1, status: 'success', value: { status: 'shipped' } },
  });
  expect(result.status, JSON.stringify(result.body)).toBe(202);
}

/**
 * Holds a run's row (on a connection of its own) while the caller acts, so the runtime's move into
 * a wait, which locks the row first, comes after the caller's act whenever the run had not moved
 * yet: claiming, answering and deciding never lock the run. Answers the run's state when held.
 */
function runHolder(context: { skip(): never }) {
  // PGlite has one connection: nothing to hold the row with.
  if (!f.t.database.url) context.skip();
  const holder = postgres(f.t.database.url!, { max: 1, onnotice: () => {} });
  onTestFinished(() => holder.end({ timeout: 5 }));
  return {
    answerHolding: (runId: string, act: () => Promise<void>) =>
      holder.begin(async (tx) => {
        const [row] = await tx<{ state: string }[]>`select state from runs where id = ${runId} for update`;
        await act();
        return row!.state;
      }),
  };
}

type Outcome = { state: string; stateWhenAnswered: string; waits: Array<{ toolCallIds: string[] | null }> };

function expectEveryRunWentOn(outcomes: Outcome[]) {
  // The case under test happened: the caller acted before the run moved (usually every time).
  expect(outcomes.filter((outcome) => outcome.stateWhenAnswered === 'running').length).toBeGreaterThan(0);
  expect(outcomes.filter((outcome) => outcome.state !== 'completed')).toEqual([]);
  expect(outcomes.filter((outcome) => outcome.waits.some((wait) => !wait.toolCallIds || wait.toolCallIds.length === 0))).toEqual([]);
}
