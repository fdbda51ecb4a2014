import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deepJson, rowCounts } from '../support/stored-rows.ts';
import { toolCalls } from '../../db/schema/index.ts';
import { MAX_JSON_DEPTH } from '../../domain/json-limits.ts';
import { recordToolCalls } from '../../services/runtime/tool-calls/index.ts';
import type { ServiceContext } from '../../services/kernel/service-context.ts';
import type { FakeModelProviders } from '../fixtures/model-vendors/catalog-server.ts';
import { manualClock, type TestApp } from '../support/app.ts';
import { ORDER, startToolCallApp, tool } from '../support/tool-call-app.ts';

/**
 * Odd input (issue 45 items 5, 6 and 9): text no column can store (a lone UTF-16 surrogate sent
 * as the JSON escape `"\ud800"`, a NUL), JSON nested 5,000 levels deep, and event types named
 * like `Object.prototype`'s members. Each is a 400 with the envelope and `details.path` on the
 * native API (the Anthropic-compatible API's cases: compat/anthropic/test/odd-input.test.ts);
 * nothing is written and the log holds none of the text. Third parties' values (model arguments)
 * fail the call.
 */
const PROMPT = 'odd-input-private-prompt';
const clock = manualClock();

let t: TestApp;
let fakes: FakeModelProviders;
let admin: string;
let agentId: string;
let p: (path: string) => string;
let sys: () => ServiceContext;
let newRun: () => Promise<{ runId: string; sessionId: string }>;
let idleSessionId: string;

beforeAll(async () => {
  ({ t, fakes, admin, agentId, p, sys, newRun } = await startToolCallApp([tool('lookup_order', 'caller', 'never', 'Looks up an order.')], clock));
  const idle = await t.request('POST', p('/sessions'), { apiKey: admin, body: { agentId } });
  expect(idle.status).toBe(201);
  idleSessionId = (await idle.json()).id;
}, 120_000);
afterAll(async () => {
  await t?.close();
  await fakes?.close();
});

async function expectRefused(response: Response, path: string) {
  const text = await response.text();
  expect(response.status, text.slice(0, 300)).toBe(400);
  const { error } = JSON.parse(text);
  expect(error).toMatchObject({ code: 'bad_request', requestId: response.headers.get('x-request-id'), details: { path } });
  expect(text).not.toContain(PROMPT);
  return error as { message: string; details: Record<string, unknown> };
}

const agentBody = (name: string) =>
  `{"name":"${name}","initialConfig":{"systemPrompt":"You are a careful assistant.","modelPreset":"fast","limits":{"maxTurns":4}}}`;

describe('text no column can store (lone surrogates, NUL) is a 400 naming the field, with nothing written', () => {
  // Bodies as raw text: `\ud800` is the JSON escape a client sends, which JSON.parse turns into a lone surrogate.
  const cases: Array<{ name: string; method: string; path: () => string; body: () => string; at: string; problem: RegExp }> = [
    {
      name: 'session create: message, high surrogate',
      method: 'POST',
      path: () => '/sessions',
      body: () => `{"agentId":"${agentId}","initialMessage":"${PROMPT} \\ud800"}`,
      at: 'body.initialMessage',
      problem: /lone UTF-16 surrogate/,
    },
    {
      name: 'session create: title, low surrogate',
      method: 'POST',
      path: () => '/sessions',
      body: () => `{"agentId":"${agentId}","title":"${PROMPT} \\udc00","initialMessage":"Hello"}`,
      at: 'body.title',
      problem: /lone UTF-16 surrogate/,
    },
    {
      name: 'session create: a nested field (a file name)',
      method: 'POST',
      path: () => '/sessions',
      body: () =>
        `{"agentId":"${agentId}","initialMessage":"Hello","files":[{"filename":"${PROMPT}\\ud83d.txt","contentType":"text/plain","dataBase64":"aGk="}]}`,
      at: 'body.files.0.filename',
      problem: /lone UTF-16 surrogate/,
    },
    {
      name: 'session create: a key',
      method: 'POST',
      path: () => '/sessions',
      body: () => `{"agentId":"${agentId}","initialMessage":"${PROMPT}","note\\ud800":1}`,
      at: 'body.note\ufffd',
      problem: /a key that is not well-formed/,
    },
    {
      name: 'session create: a NUL',
      method: 'POST',
      path: () => '/sessions',
      body: () => `{"agentId":"${agentId}","initialMessage":"${PROMPT} \\u0000"}`,
      at: 'body.initialMessage',
      problem: /NUL character/,
    },
    {
      name: 'a turn',
      method: 'POST',
      path: () => `/sessions/${idleSessionId}/runs`,
      body: () => `{"message":"${PROMPT} \\ud800"}`,
      at: 'body.message',
      problem: /lone UTF-16 surrogate/,
    },
    {
      name: 'a session title',
      method: 'PATCH',
      path: () => `/sessions/${idleSessionId}`,
      body: () => `{"title":"${PROMPT} \\udfff"}`,
      at: 'body.title',
      problem: /lone UTF-16 surrogate/,
    },
    {
      name: 'an agent name',
      method: 'POST',
      path: () => '/agents',
      body: () => agentBody(`${PROMPT} \\ud800`),
      at: 'body.name',
      problem: /lone UTF-16 surrogate/,
    },
  ];

  it.each(cases)('native $name', async ({ method, path, body, at, problem }) => {
    const before = await rowCounts(t.database.db);
    const error = await expectRefused(await t.request(method, p(path()), { apiKey: admin, rawBody: body() }), at);
    expect(error.message).toMatch(problem);
    expect(await rowCounts(t.database.db)).toEqual(before);
  });

  it('left nothing of the refused text in the log', () => {
    expect(t.logLines.join('\n')).not.toContain(PROMPT);
  });

  it('a failing statement is logged with its SQL and SQLSTATE, never its parameters', async () => {
    // A real statement the server refuses, on the real driver, logged by the app's logger.
    const failed = await t.database.db.execute(sql`select ${`${PROMPT}-parameter`}::uuid`).then(
      () => null,
      (error: unknown) => error,
    );
    expect(failed).toBeInstanceOf(Error);
    const from = t.logLines.length;
    t.deps.logger.error('request failed', { err: failed });
    const logged = t.logLines.slice(from).join('\n');
    expect(logged).not.toContain(PROMPT);
    expect(JSON.parse(logged).err).toMatchObject({ message: expect.stringMatching(/^Failed query: select \$1::uuid$/), cause: { code: '22P02' } });
  });
});

describe(`JSON nested past ${MAX_JSON_DEPTH} levels is a 400 naming the limit`, () => {
  const DEEP = deepJson(5_000);

  it('a caller tool result (5,000 levels): 400, and the call is still claimed with no result', async () => {
    const { runId } = await newRun();
    const recorded = await recordToolCalls(sys(), {
      runId,
      turnId: 'turn-deep',
      calls: [{ providerCallId: 'call_deep', name: 'lookup_order', arguments: { orderId: ORDER }, argumentsText: '{}' }],
    });
    const id = recorded.calls[0]!.toolCallId;
    const claimed = await (await t.request('POST', p(`/tool-calls/${id}/claim`), { apiKey: admin, body: {} })).json();
    const response = await t.request('POST', p(`/tool-calls/${id}/result`), {
      apiKey: admin,
      rawBody: `{"fence":"${claimed.fence}","safeResult":{"version":1,"status":"success","value":{"total":1,"extra":${DEEP}}}}`,
    });
    const error = await expectRefused(response, ['body.safeResult.value.extra', ...Array(MAX_JSON_DEPTH - 3).fill('a')].join('.'));
    expect(error.message).toContain(`nests deeper than ${MAX_JSON_DEPTH} levels`);
    expect(error.details).toMatchObject({ limit: 'json_depth', maxDepth: MAX_JSON_DEPTH });
    const [row] = await t.database.db.select().from(toolCalls).where(eq(toolCalls.id, id));
    expect(row).toMatchObject({ status: 'claimed', safeResult: null });
  });

  it('session metadata (5,000 levels): the limit, before any field rule', async () => {
    const error = await expectRefused(
      await t.request('POST', p('/sessions'), { apiKey: admin, rawBody: `{"agentId":"${agentId}","initialMessage":"Hi","metadata":${DEEP}}` }),
      ['body.metadata', ...Array(MAX_JSON_DEPTH - 1).fill('a')].join('.'),
    );
    expect(error.details).toMatchObject({ limit: 'json_depth', maxDepth: MAX_JSON_DEPTH });
  });
});

describe('values from third parties that cannot be stored fail the call, not the worker', () => {
  it('model tool arguments nested past the limit or holding a lone surrogate: invalid_tool_arguments naming the path', async () => {
    const { runId } = await newRun();
    const deep = JSON.parse(`{"orderId":"${ORDER}","items":${deepJson(5_000)}}`);
    const lone = JSON.parse(`{"orderId":"${ORDER}","note":"\\udc00"}`);
    const recorded = await recordToolCalls(sys(), {
      runId,
      turnId: 'turn-third-party',
      calls: [
        { providerCallId: 'call_deep', name: 'lookup_order', arguments: deep, argumentsText: '{}' },
        { providerCallId: 'call_lone', name: 'lookup_order', arguments: lone, argumentsText: '{}' },
      ],
    });
    expect(recorded.calls.map((call) => call.status)).toEqual(['failed', 'failed']);
    const rows = await Promise.all(
      recorded.calls.map(async (call) => (await t.database.db.select().from(toolCalls).where(eq(toolCalls.id, call.toolCallId)))[0]!),
    );
    expect(rows[0]!.failure).toMatchObject({ code: 'invalid_tool_arguments', message: expect.stringContaining(`nests deeper than ${MAX_JSON_DEPTH} levels`) });
    expect(rows[1]!.failure).toMatchObject({ code: 'invalid_tool_arguments', path: 'arguments.note' });
  });
});
