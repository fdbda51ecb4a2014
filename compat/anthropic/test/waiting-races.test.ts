import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitingEventsOf } from '../../../test/support/stored-rows.ts';
import { recordSdkRequests } from '../../../test/support/anthropic-sdk.ts';
import { serveApp, type ServedApp } from '../../../test/support/http-server.ts';
import { startRunApp } from '../../../test/support/run-app.ts';

/**
 * A caller tool answered before the run waits for it (test/integration/waiting-races.test.ts),
 * through the Anthropic-compatible API: a SessionToolRunner that answers a custom tool as soon as
 * `agent.custom_tool_use` arrives must never see a `requires_action` idle naming nothing.
 */
let f: Awaited<ReturnType<typeof startRunApp>>;
let served: ServedApp;
const requests = recordSdkRequests();
const TRIES = 20;

beforeAll(async () => {
  f = await startRunApp();
  served = await serveApp(f.t.app.fetch);
}, 120_000);
afterAll(async () => {
  await served?.close();
  await f?.close();
});

describe('a caller tool answered before the run waits for it', () => {
  it(`through the Anthropic-compatible API: a SessionToolRunner answering at once, ${TRIES} times in a row`, async () => {
    const { betaTool } = await import('@anthropic-ai/sdk/helpers/beta/json-schema');
    const client = new Anthropic({ baseURL: `${served.baseUrl}/compat/anthropic`, apiKey: f.apiKey, fetch: requests.fetch, maxRetries: 2 });
    const weather = {
      type: 'custom' as const,
      name: 'get_weather',
      description: 'The weather in a city',
      input_schema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] },
    };
    const agent = await client.beta.agents.create({ name: 'Fast answers', model: 'fast', tools: [weather] });
    const getWeather = betaTool({
      name: 'get_weather',
      description: 'The weather in a city',
      inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      run: async () => JSON.stringify({ forecast: 'sunny' }),
    });
    const outcomes = [];
    for (let attempt = 0; attempt < TRIES; attempt++) {
      const session = await client.beta.sessions.create({ agent: agent.id, environment_id: 'env_default' });
      // The runner listens before the message is sent, so it answers the use the moment it is recorded.
      // A new session reads as idle: the runner's idle ceiling must outlast the send on a slow host.
      const runner = client.beta.sessions.events.toolRunner(session.id, { tools: [getWeather], maxIdleMs: 2_500 });
      const ran = (async () => {
        const items = [];
        for await (const item of runner) items.push(item.posted);
        return items;
      })();
      await new Promise((resolve) => setTimeout(resolve, 100));
      f.fakes.vendor_a.reply({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Rome' } }] }).reply({ text: 'Sunny in Rome.' });
      await client.beta.sessions.events.send(session.id, { events: [{ type: 'user.message', content: [{ type: 'text', text: 'Weather in Rome?' }] }] });
      expect(await ran).toEqual([true]);
      const runId = (await f.call('GET', `/sessions/${session.id}`)).body.latestRunId as string;
      const run = await f.waitForRun(runId);
      const idles = [];
      for await (const event of client.beta.sessions.events.list(session.id)) {
        if (event.type === 'session.status_idle' && event.stop_reason.type === 'requires_action') idles.push(event.stop_reason.event_ids);
      }
      outcomes.push({ attempt, state: run.state, waits: await waitingEventsOf(f.t.database.db, runId), requiresAction: idles });
    }
    // Every run settled `completed`; no wait named nothing, and no idle asked for nothing.
    expect(outcomes.filter((outcome) => outcome.state !== 'completed')).toEqual([]);
    expect(outcomes.filter((outcome) => outcome.waits.some((wait) => !wait.toolCallIds || wait.toolCallIds.length === 0))).toEqual([]);
    expect(outcomes.filter((outcome) => outcome.requiresAction.some((ids) => ids.length === 0))).toEqual([]);
  }, 300_000);
});
