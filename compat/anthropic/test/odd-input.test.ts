import Anthropic, { BadRequestError } from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deepJson, rowCounts } from '../../../test/support/stored-rows.ts';
import { MAX_JSON_DEPTH } from '../../../domain/json-limits.ts';
import { recordToolCalls } from '../../../services/runtime/tool-calls/index.ts';
import type { ServiceContext } from '../../../services/kernel/service-context.ts';
import type { FakeModelProviders } from '../../../test/fixtures/model-vendors/catalog-server.ts';
import { manualClock, type TestApp } from '../../../test/support/app.ts';
import { serveApp, type ServedApp } from '../../../test/support/http-server.ts';
import { startToolCallApp, tool } from '../../../test/support/tool-call-app.ts';

/**
 * Odd input through the official SDK on the Anthropic-compatible API (the native API's cases:
 * test/integration/odd-input.test.ts): text no column can store and JSON nested past the limit
 * are a 400 `invalid_request_error` naming the field, with nothing written and none of the text
 * in the answer or the log; event types named like `Object.prototype`'s members are unknown types.
 */
const PROMPT = 'odd-input-private-prompt';
const clock = manualClock();

let t: TestApp;
let fakes: FakeModelProviders;
let admin: string;
let p: (path: string) => string;
let sys: () => ServiceContext;
let served: ServedApp;

beforeAll(async () => {
  ({ t, fakes, admin, p, sys } = await startToolCallApp([tool('lookup_order', 'caller', 'never', 'Looks up an order.')], clock));
  served = await serveApp(t.app.fetch);
}, 120_000);
afterAll(async () => {
  await served?.close();
  await t?.close();
  await fakes?.close();
});

const sdk = (apiKey = admin) => new Anthropic({ baseURL: `${served.baseUrl}/compat/anthropic`, apiKey, maxRetries: 0 });

describe('text no column can store (lone surrogates, NUL) is a 400 naming the field, with nothing written', () => {
  it('compat user.message through the SDK: 400 naming the content block, no turn written', async () => {
    const client = sdk();
    const agent = await client.beta.agents.create({ name: 'Odd', model: 'fast', system: 'You help.' });
    const session = await client.beta.sessions.create({ agent: agent.id, environment_id: 'env_default' });
    const before = await rowCounts(t.database.db);
    const refused = await client.beta.sessions.events
      .send(session.id, { events: [{ type: 'user.message', content: [{ type: 'text', text: `${PROMPT} \ud800` }] }] })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(BadRequestError);
    const body = (refused as BadRequestError).error as { error: { type: string; message: string; details: { path: string } } };
    expect(body.error).toMatchObject({ type: 'invalid_request_error', details: { path: 'body.events.0.content.0.text' } });
    expect(body.error.message).toMatch(/lone UTF-16 surrogate/);
    expect(JSON.stringify(body)).not.toContain(PROMPT);
    // A session title and an agent name, the same way.
    await expect(client.beta.sessions.update(session.id, { title: `${PROMPT} \udc00` })).rejects.toBeInstanceOf(BadRequestError);
    await expect(client.beta.agents.create({ name: `${PROMPT} \ud800`, model: 'fast' })).rejects.toBeInstanceOf(BadRequestError);
    expect(await rowCounts(t.database.db)).toEqual(before);
  });

  it('left nothing of the refused text in the log', () => {
    expect(t.logLines.join('\n')).not.toContain(PROMPT);
  });
});

describe(`JSON nested past ${MAX_JSON_DEPTH} levels is a 400 naming the limit`, () => {
  const DEEP = deepJson(5_000);

  it('compat bodies through the SDK: agent metadata, a custom tool result block and the JSON its text spells', async () => {
    const client = sdk();
    const raw = (path: string, body: string) => client.post(path, { body, headers: { 'content-type': 'application/json' } }).catch((error: unknown) => error);
    const deepAgent = await raw('/v1/agents', `{"name":"Deep","model":"fast","metadata":${DEEP}}`);
    expect(deepAgent).toBeInstanceOf(BadRequestError);
    expect((deepAgent as BadRequestError).message).toContain(`nests deeper than ${MAX_JSON_DEPTH} levels`);

    const agent = await client.beta.agents.create({
      name: 'Weather',
      model: 'fast',
      tools: [{ type: 'custom', name: 'get_weather', description: 'The weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }],
    });
    const session = await client.beta.sessions.create({ agent: agent.id, environment_id: 'env_default' });
    // Its run stays queued (no worker here); the test records the model's tool call itself.
    await client.beta.sessions.events.send(session.id, { events: [{ type: 'user.message', content: [{ type: 'text', text: 'Weather in Oslo?' }] }] });
    const runId: string = (await (await t.request('GET', p(`/sessions/${session.id}`), { apiKey: admin })).json()).latestRunId;
    await recordToolCalls(sys(), {
      runId,
      turnId: 'turn-compat',
      calls: [{ providerCallId: 'toolu_1', name: 'get_weather', arguments: { city: 'Oslo' }, argumentsText: '{"city":"Oslo"}' }],
    });
    const use = [];
    for await (const event of client.beta.sessions.events.list(session.id)) if (event.type === 'agent.custom_tool_use') use.push(event.id);
    expect(use).toHaveLength(1);
    const before = await rowCounts(t.database.db);
    const inBlock = await raw(
      `/v1/sessions/${session.id}/events`,
      `{"events":[{"type":"user.custom_tool_result","custom_tool_use_id":"${use[0]}","content":[{"type":"text","text":"x","extra":${DEEP}}]}]}`,
    );
    expect(inBlock).toBeInstanceOf(BadRequestError);
    expect((inBlock as BadRequestError).error).toMatchObject({ error: { details: { limit: 'json_depth', maxDepth: MAX_JSON_DEPTH } } });
    // The JSON a text block spells is parsed into the tool's value: the same limit.
    const inText = await client.beta.sessions.events
      .send(session.id, { events: [{ type: 'user.custom_tool_result', custom_tool_use_id: use[0]!, content: [{ type: 'text', text: DEEP }] }] })
      .catch((error: unknown) => error);
    expect(inText).toBeInstanceOf(BadRequestError);
    expect((inText as BadRequestError).error).toMatchObject({ error: { details: { path: 'body.events.0.content', limit: 'json_depth' } } });
    expect(await rowCounts(t.database.db)).toEqual(before);
  });
});

describe('event types named like Object.prototype members are unknown types (400), not scope lookups', () => {
  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'])('%s', async (type) => {
    // A key without `*`: a lookup reaching Object.prototype answered "lacks scope: function Object()".
    const narrow = (await t.createApiKey(['agent:read', 'agent:write', 'session:read', 'session:write', 'run:create', 'run:read'], `narrow ${type}`)).secret;
    const client = sdk(narrow);
    const agent = await client.beta.agents.create({ name: `Proto ${type}`, model: 'fast' });
    const session = await client.beta.sessions.create({ agent: agent.id, environment_id: 'env_default' });
    const refused = await client.beta.sessions.events.send(session.id, { events: [{ type } as never] }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(BadRequestError);
    const body = (refused as BadRequestError).error as { error: { message: string; details: { path: string } } };
    expect(body.error).toMatchObject({ message: `events.0.type: ${type} is not supported by this server`, details: { path: 'body.events.0.type' } });
  });
});
