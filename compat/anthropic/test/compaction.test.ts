import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveApp, type ServedApp } from '../../../test/support/http-server.ts';
import { startRunApp } from '../../../test/support/run-app.ts';

/**
 * Context compaction through the Anthropic-compatible API (docs/decisions/context-compaction.md):
 * the official SDK, unmodified, streams a session whose conversation outgrows the fake vendor's
 * window; the compaction shows as `agent.thread_context_compacted` between the turns where it
 * happened, and a turn that cannot fit at all ends in `compaction_limit_reached_error`.
 */
let f: Awaited<ReturnType<typeof startRunApp>>;
let served: ServedApp;

const sdk = () => new Anthropic({ baseURL: `${served.baseUrl}/compat/anthropic`, apiKey: f.apiKey, maxRetries: 0 });
type Event = { type: string; id?: string; stop_reason?: { type: string }; error?: { type: string } };

beforeAll(async () => {
  f = await startRunApp();
  served = await serveApp(f.t.app.fetch);
  f.fakes.vendor_a.defaultReply = (request, lastUserText) =>
    JSON.stringify(request.body).includes('You compact the transcript')
      ? { text: 'SUMMARY: numbered turns so far.' }
      : { text: `ok ${lastUserText.slice(0, 12)} ${'r'.repeat(1_600)}` };
}, 120_000);
afterAll(async () => {
  f.fakes.vendor_a.contextWindow = null;
  await served?.close();
  await f?.close();
});

/** Reads on (one iterator for the whole stream) until the session has gone idle `count` times in all. */
async function idleTimes(stream: AsyncIterator<unknown>, count: number, seen: Event[]): Promise<void> {
  while (seen.filter((entry) => entry.type === 'session.status_idle').length < count) {
    const next = await stream.next();
    if (next.done) throw new Error(`the stream ended after ${JSON.stringify(seen.map((event) => event.type))}`);
    seen.push(next.value as Event);
  }
}

describe('compaction through the Anthropic-compatible API', () => {
  it('the stream shows agent.thread_context_compacted between the turns where it happened', async () => {
    const client = sdk();
    const agent = await client.beta.agents.create({ name: 'Long talker', model: 'fast' });
    const session = await client.beta.sessions.create({ agent: agent.id, environment_id: 'env_default' });
    // About 400 tokens a turn each way against a 3,000-token window: the vendor refuses the fourth or so.
    f.fakes.vendor_a.contextWindow = 3_000;
    const events: Event[] = [];
    const stream = await client.beta.sessions.events.stream(session.id);
    const iterator = stream[Symbol.asyncIterator]();
    try {
      for (let turn = 1; turn <= 8; turn++) {
        await client.beta.sessions.events.send(session.id, {
          events: [{ type: 'user.message', content: [{ type: 'text', text: `turn ${turn} ${'u'.repeat(1_600)}` }] }],
        });
        await idleTimes(iterator, turn, events);
        expect(events.at(-1)).toMatchObject({ type: 'session.status_idle', stop_reason: { type: 'end_turn' } });
      }
    } finally {
      stream.controller.abort();
      f.fakes.vendor_a.contextWindow = null;
    }
    const types = events.map((event) => event.type);
    const compacted = types.flatMap((type, index) => (type === 'agent.thread_context_compacted' ? [index] : []));
    expect(compacted.length).toBeGreaterThanOrEqual(1);
    for (const at of compacted) {
      // After an earlier turn's reply, before the reply of the turn it made room for.
      expect(types.slice(0, at)).toContain('agent.message');
      expect(types.slice(at)).toContain('agent.message');
      expect(events[at]!.id).toMatch(/^sevt_/);
    }
    // Listed the same as streamed.
    const listed: Event[] = [];
    for await (const event of client.beta.sessions.events.list(session.id)) listed.push(event as Event);
    expect(listed.filter((event) => event.type === 'agent.thread_context_compacted').map((event) => event.id)).toEqual(compacted.map((at) => events[at]!.id));
  }, 120_000);

  it('a turn that fits no window ends in session.error compaction_limit_reached_error', async () => {
    const client = sdk();
    const agent = await client.beta.agents.create({ name: 'Too long', model: 'fast' });
    const session = await client.beta.sessions.create({ agent: agent.id, environment_id: 'env_default' });
    const events: Event[] = [];
    const stream = await client.beta.sessions.events.stream(session.id);
    const iterator = stream[Symbol.asyncIterator]();
    try {
      await client.beta.sessions.events.send(session.id, { events: [{ type: 'user.message', content: [{ type: 'text', text: 'short first turn' }] }] });
      await idleTimes(iterator, 1, events);
      f.fakes.vendor_a.contextWindow = 50;
      await client.beta.sessions.events.send(session.id, {
        events: [{ type: 'user.message', content: [{ type: 'text', text: `too long ${'u'.repeat(2_000)}` }] }],
      });
      await idleTimes(iterator, 2, events);
    } finally {
      stream.controller.abort();
      f.fakes.vendor_a.contextWindow = null;
    }
    const error = events.find((event) => event.type === 'session.error');
    expect(error?.error?.type).toBe('compaction_limit_reached_error');
    expect(events.at(-1)).toMatchObject({ type: 'session.status_idle', stop_reason: { type: 'retries_exhausted' } });
  }, 120_000);
});
