import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../../db/schema/index.ts';
import { startRunApp } from '../support/run-app.ts';
import { addNumbersTool } from '../support/platform-tools.ts';

/**
 * Tool calls end to end: the model (a fake vendor at the wire) calls tools, the workflow waits on
 * signals for caller tools and runs platform tools in the worker, and the results go back to the
 * model on the next turn.
 */
let f: Awaited<ReturnType<typeof startRunApp>>;
let platformCalls = 0;

const lookupOrder = {
  name: 'lookup_order',
  description: 'Looks up an order',
  owner: 'caller',
  approval: 'never',
  inputSchema: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'], additionalProperties: false },
  outputSchema: { type: 'object', properties: { status: { type: 'string' } }, required: ['status'] },
};
const addNumbers = addNumbersTool;
const unhandled = { ...addNumbers, name: 'not_registered', description: 'No handler in this worker' };

beforeAll(async () => {
  f = await startRunApp({
    platformTools: {
      add_numbers: async ({ arguments: args }) => {
        platformCalls += 1;
        const { a, b } = args as { a: number; b: number };
        return { status: 'success', value: { sum: a + b } };
      },
    },
  });
}, 120_000);
afterAll(() => f?.close());

async function startRun(tools: unknown[], initialMessage: string, maxTurns = 8) {
  const agent = await f.call('POST', '/agents', {
    name: `Tools ${Math.random()}`,
    initialConfig: { systemPrompt: 'Use tools.', modelPreset: 'fast', tools, limits: { maxTurns } },
  });
  expect(agent.status, JSON.stringify(agent.body)).toBe(201);
  const session = await f.call('POST', '/sessions', { agentId: agent.body.id, initialMessage });
  expect(session.status).toBe(201);
  return session.body.latestRunId as string;
}

async function pendingCallOf(runId: string) {
  await f.waitForRun(runId, (run) => run.state === 'waiting_for_tool');
  const list = await f.call('GET', `/tool-calls?runId=${runId}`);
  expect(list.status).toBe(200);
  return list.body.data.find((call: { status: string }) => call.status === 'pending');
}

const lastRequest = () => JSON.stringify(f.fakes.vendor_a.requests.at(-1)!.body);

describe('caller tools', () => {
  it('round trip: claim, submit a result, the model continues with it', async () => {
    f.fakes.vendor_a.reply({ toolCalls: [{ name: 'lookup_order', arguments: { orderId: 'A1' } }] }).reply({ text: 'Order A1 has shipped.' });
    const runId = await startRun([lookupOrder], 'Where is A1?');
    const call = await pendingCallOf(runId);
    expect(call).toMatchObject({ toolName: 'lookup_order', owner: 'caller', safeArguments: { orderId: 'A1' } });
    const claim = await f.call('POST', `/tool-calls/${call.id}/claim`);
    expect(claim.status).toBe(200);
    expect(claim.body.fence).toMatch(/^[1-9][0-9]*$/);
    const result = await f.call('POST', `/tool-calls/${call.id}/result`, {
      fence: claim.body.fence,
      safeResult: { version: 1, status: 'success', value: { status: 'shipped' } },
    });
    expect(result.status).toBe(202);
    expect(result.body).toEqual({ outcome: 'submitted' });
    const run = await f.waitForRun(runId);
    expect(run.state).toBe('completed');
    expect(lastRequest()).toContain('shipped');
    const roles = (await f.t.database.db.select().from(messages).where(eq(messages.runId, runId))).map((m) => m.role);
    expect(roles).toEqual(['user', 'assistant', 'tool', 'assistant']);
  }, 60_000);

  it('rejects a stale fence', async () => {
    f.fakes.vendor_a.reply({ toolCalls: [{ name: 'lookup_order', arguments: { orderId: 'B2' } }] }).reply({ text: 'Done.' });
    const runId = await startRun([lookupOrder], 'Where is B2?');
    const call = await pendingCallOf(runId);
    const first = await f.call('POST', `/tool-calls/${call.id}/claim`);
    expect((await f.call('POST', `/tool-calls/${call.id}/release`, { fence: first.body.fence })).status).toBe(200);
    const second = await f.call('POST', `/tool-calls/${call.id}/claim`);
    expect(second.body.fence).not.toBe(first.body.fence);
    const stale = await f.call('POST', `/tool-calls/${call.id}/result`, {
      fence: first.body.fence,
      safeResult: { version: 1, status: 'success', value: { status: 'x' } },
    });
    expect(stale.status).toBe(409);
    const fresh = await f.call('POST', `/tool-calls/${call.id}/result`, {
      fence: second.body.fence,
      safeResult: { version: 1, status: 'success', value: { status: 'ok' } },
    });
    expect(fresh.status).toBe(202);
    expect((await f.waitForRun(runId)).state).toBe('completed');
  }, 60_000);

  it('invalid arguments go back to the model as invalid_tool_arguments', async () => {
    f.fakes.vendor_a.reply({ toolCalls: [{ name: 'lookup_order', arguments: { orderId: 42 } }] }).reply({ text: 'Sorry, bad id.' });
    const runId = await startRun([lookupOrder], 'Order 42?');
    const run = await f.waitForRun(runId);
    expect(run.state).toBe('completed');
    expect(lastRequest()).toContain('invalid_tool_arguments');
  }, 60_000);

  it('a malformed success becomes invalid_tool_result; the raw value is neither stored nor sent', async () => {
    f.fakes.vendor_a.reply({ toolCalls: [{ name: 'lookup_order', arguments: { orderId: 'C3' } }] }).reply({ text: 'Could not read it.' });
    const runId = await startRun([lookupOrder], 'Where is C3?');
    const call = await pendingCallOf(runId);
    const claim = await f.call('POST', `/tool-calls/${call.id}/claim`);
    const result = await f.call('POST', `/tool-calls/${call.id}/result`, {
      fence: claim.body.fence,
      safeResult: { version: 1, status: 'success', value: { status: 12345, secretish: 'RAW-VALUE-MARKER' } },
    });
    expect(result.status).toBe(202);
    expect(result.body.normalizedFailure).toMatchObject({ code: 'invalid_tool_result' });
    expect(result.body.normalizedFailure.path).toMatch(/^safeResult\.value/);
    expect((await f.waitForRun(runId)).state).toBe('completed');
    expect(lastRequest()).toContain('invalid_tool_result');
    expect(lastRequest()).not.toContain('RAW-VALUE-MARKER');
    const stored = await f.call('GET', `/tool-calls?runId=${runId}`);
    expect(JSON.stringify(stored.body)).not.toContain('RAW-VALUE-MARKER');
  }, 60_000);

  it('cancelling while waiting for a tool settles the run cancelled', async () => {
    f.fakes.vendor_a.reply({ toolCalls: [{ name: 'lookup_order', arguments: { orderId: 'D4' } }] });
    const runId = await startRun([lookupOrder], 'Where is D4?');
    await pendingCallOf(runId);
    expect((await f.call('POST', `/runs/${runId}/cancel`)).status).toBe(202);
    const run = await f.waitForRun(runId);
    expect(run.state).toBe('cancelled');
    const calls = await f.call('GET', `/tool-calls?runId=${runId}`);
    expect(calls.body.data[0].status).toBe('cancelled');
  }, 60_000);
});

describe('platform tools', () => {
  it('run in the worker; one without a handler fails with platform_tool_failed', async () => {
    f.fakes.vendor_a
      .reply({
        toolCalls: [
          { name: 'add_numbers', arguments: { a: 2, b: 3 } },
          { name: 'not_registered', arguments: { a: 1, b: 1 } },
        ],
      })
      .reply({ text: 'The sum is 5.' });
    const runId = await startRun([addNumbers, unhandled], 'Add 2 and 3.');
    const run = await f.waitForRun(runId);
    expect(run.state).toBe('completed');
    const sent = lastRequest();
    // OpenAI's function_call_output carries the result as a JSON string inside the body.
    expect(sent).toContain('\\"sum\\":5');
    expect(sent).toContain('platform_tool_failed');
  }, 60_000);

  it('a run with 50 tool round trips completes', async () => {
    const before = platformCalls;
    for (let i = 0; i < 50; i++) f.fakes.vendor_a.reply({ toolCalls: [{ name: 'add_numbers', arguments: { a: i, b: 1 } }] });
    f.fakes.vendor_a.reply({ text: 'All added.' });
    const runId = await startRun([addNumbers], 'Add fifty times.', 64);
    const run = await f.waitForRun(runId, undefined, 120_000);
    expect(run.state).toBe('completed');
    expect(platformCalls - before).toBe(50);
    const assistant = await f.t.database.db
      .select()
      .from(messages)
      .where(and(eq(messages.runId, runId), eq(messages.role, 'assistant')));
    expect(assistant).toHaveLength(51);
  }, 150_000);
});
