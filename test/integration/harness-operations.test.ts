import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTurnReservations } from '../../db/schema/index.ts';
import { addNumbersHandler, addNumbersTool } from '../support/platform-tools.ts';
import { startRunApp } from '../support/run-app.ts';

/**
 * Harness Operations through the real worker: the parent model calls an operation with `{task}`,
 * a focused sub-loop runs on its own thread with the parent's tools, budget and model, and its
 * final answer comes back validated against `resultSchema`, or as a tool error (invalid result,
 * timeout, spent budget), never as a failed run by itself.
 */
let f: Awaited<ReturnType<typeof startRunApp>>;

beforeAll(async () => {
  f = await startRunApp({
    platformTools: {
      add_numbers: addNumbersHandler,
    },
  });
}, 120_000);
afterAll(() => f?.close());

const summarize = (timeoutMs = 30_000) => ({
  key: 'summarize',
  description: 'Summarizes a text and counts its words.',
  instructions: 'Count carefully; use add_numbers for arithmetic.',
  resultSchema: { type: 'object', properties: { summary: { type: 'string' }, words: { type: 'integer' } }, required: ['summary', 'words'] },
  timeoutMs,
});

async function runWith(input: { maxTurns?: number; timeoutMs?: number }) {
  const agent = await f.call('POST', '/agents', {
    name: `Operator ${randomUUID().slice(0, 6)}`,
    initialConfig: {
      systemPrompt: 'You coordinate work.',
      modelPreset: 'fast',
      limits: { maxTurns: input.maxTurns ?? 8 },
      tools: [addNumbersTool],
      harnessOperations: [summarize(input.timeoutMs)],
    },
  });
  expect(agent.status, JSON.stringify(agent.body)).toBe(201);
  const session = await f.call('POST', '/sessions', { agentId: agent.body.id, initialMessage: 'Summarize the report.' });
  expect(session.status, JSON.stringify(session.body)).toBe(201);
  return { sessionId: session.body.id as string, runId: session.body.latestRunId as string };
}

const requestBody = (index: number) =>
  f.fakes.vendor_a.requests[index]!.body as {
    instructions: string;
    tools?: Array<{ name: string }>;
    input: Array<{ role?: string; content?: unknown; type?: string; output?: string }>;
  };
const operationCall = async (runId: string) =>
  ((await f.call('GET', `/tool-calls?runId=${runId}`)).body.data as Array<Record<string, any>>).find((call) => call.toolName === 'summarize')!;

describe('Harness Operations', () => {
  it('a sub-loop with the parent tools returns a valid object to the parent', async () => {
    f.fakes.vendor_a
      .reply({ toolCalls: [{ name: 'summarize', arguments: { task: 'Summarize: the quarter went well.' } }] })
      .reply({ toolCalls: [{ name: 'add_numbers', arguments: { a: 2, b: 3 } }] })
      .reply({ text: '{"summary":"A good quarter.","words":5}' })
      .reply({ text: 'The quarter went well (5 words).' });
    const first = f.fakes.vendor_a.requests.length;
    const { sessionId, runId } = await runWith({});
    expect((await f.waitForRun(runId)).state).toBe('completed');

    // The parent was offered the operation; the sub-loop got its own instructions, task and tools.
    expect(requestBody(first).tools!.map((tool) => tool.name)).toContain('summarize');
    const sub = requestBody(first + 1);
    expect(sub.instructions).toContain('You coordinate work.');
    expect(sub.instructions).toContain('## Operation: summarize');
    expect(sub.instructions).toContain('Count carefully');
    expect(sub.tools!.map((tool) => tool.name)).toEqual(['add_numbers']);
    expect(JSON.stringify(sub.input)).toContain('Summarize: the quarter went well.');
    expect(JSON.stringify(sub.input)).not.toContain('Summarize the report.');
    // The parent's next turn sees the result object.
    expect(JSON.stringify(requestBody(first + 3).input)).toContain('A good quarter.');

    const call = await operationCall(runId);
    expect(call).toMatchObject({ status: 'succeeded', safeResult: { value: { summary: 'A good quarter.', words: 5 } } });
    expect(call.execution).toMatchObject({ kind: 'harness_operation', operationKey: 'summarize', turns: 2, failureReason: null });
    // The sub-loop is in the debug record, not in the session's transcript or the run's messages.
    const detail = await f.call('GET', `/sessions/${sessionId}`);
    expect(detail.body.transcript.map((message: { role: string }) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(detail.body.debug.modelInvocations.map((invocation: { turnId: string }) => invocation.turnId)).toEqual([
      'turn-1',
      `op:${call.id}:turn-1`,
      `op:${call.id}:turn-2`,
      'turn-2',
    ]);
    expect(detail.body.debug.toolCalls.map((entry: { toolName: string }) => entry.toolName).sort()).toEqual(['add_numbers', 'summarize']);
    const runMessages = await f.call('GET', `/runs/${runId}/messages`);
    expect(runMessages.body.data.map((message: { role: string }) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
  }, 60_000);

  it('an invalid result comes back as a tool error, and the run goes on', async () => {
    f.fakes.vendor_a
      .reply({ toolCalls: [{ name: 'summarize', arguments: { task: 'Summarize.' } }] })
      .reply({ text: '{"summary": 3}' })
      .reply({ toolCalls: [{ name: 'summarize', arguments: { task: 'Again.' } }] })
      .reply({ text: 'I could not summarize it.' })
      .reply({ text: 'Both attempts failed.' });
    const { runId } = await runWith({});
    expect((await f.waitForRun(runId)).state).toBe('completed');
    const calls = ((await f.call('GET', `/tool-calls?runId=${runId}`)).body.data as Array<Record<string, any>>).filter((call) => call.toolName === 'summarize');
    expect(calls.map((call) => [call.status, call.failure.code])).toEqual([
      ['failed', 'invalid_tool_result'],
      ['failed', 'platform_tool_failed'],
    ]);
    expect(calls[0]!.failure.path).toMatch(/^safeResult\.value/);
    expect(calls[1]!.failure.reason).toBe('invalid_result');
  }, 60_000);

  it('a sub-loop past its timeoutMs is a tool error', async () => {
    f.fakes.vendor_a
      .reply({ toolCalls: [{ name: 'summarize', arguments: { task: 'Take your time.' } }] })
      .reply({ text: '{"summary":"late","words":1}', delayMs: 20_000 })
      .reply({ text: 'It timed out.' });
    const { runId } = await runWith({ timeoutMs: 1_000 });
    expect((await f.waitForRun(runId)).state).toBe('completed');
    const call = await operationCall(runId);
    expect(call.failure).toMatchObject({ code: 'platform_tool_failed', reason: 'timed_out' });
    // The deadline is the subject: 1 s, far from the 20 s the answer would have taken.
    expect(call.execution.durationMs).toBeLessThan(10_000);
  }, 60_000);

  it("sub-loop turns spend the parent run's turn budget", async () => {
    f.fakes.vendor_a
      .reply({ toolCalls: [{ name: 'summarize', arguments: { task: 'Count to a lot.' } }] })
      .reply({ toolCalls: [{ name: 'add_numbers', arguments: { a: 1, b: 1 } }] })
      .reply({ toolCalls: [{ name: 'add_numbers', arguments: { a: 2, b: 2 } }] });
    const { runId } = await runWith({ maxTurns: 3 });
    const run = await f.waitForRun(runId);
    expect(run.state).toBe('failed');
    expect(run.failure.errorCode).toBe('model_turn_limit_exceeded');
    const call = await operationCall(runId);
    expect(call.failure).toMatchObject({ code: 'platform_tool_failed', reason: 'turn_budget_exhausted' });
    const reservations = await f.t.database.db.select().from(runTurnReservations).where(eq(runTurnReservations.runId, runId));
    expect(reservations).toHaveLength(3);
  }, 60_000);
});
