import Anthropic, { BadRequestError } from '@anthropic-ai/sdk';
import { accumulateManagedAgentsEvent } from '@anthropic-ai/sdk/lib/sessions/accumulate';
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { productEvents } from '../../../db/schema/index.ts';
import { turnMessageEventId } from '../../../domain/runs/turn-message-event-id.ts';
import { finishModelTurn } from '../../../services/runtime/model-turns/index.ts';
import { systemContext } from '../../../services/kernel/service-context.ts';
import { serveApp, type ServedApp } from '../../../test/support/http-server.ts';
import { startRunApp } from '../../../test/support/run-app.ts';

/**
 * Event deltas of the Anthropic-compatible API (issue 32 on issue 30's live output): with
 * `event_deltas[]=agent.message` the session stream previews the reply being written as
 * `event_start` + `event_delta` frames whose id is the one the buffered `agent.message` carries.
 * The official SDK, unmodified, reads the stream; the fake vendor streams the reply in chunks.
 */
let f: Awaited<ReturnType<typeof startRunApp>>;
let served: ServedApp;

const sdk = () => new Anthropic({ baseURL: `${served.baseUrl}/compat/anthropic`, apiKey: f.apiKey, maxRetries: 0 });
const weather = {
  type: 'custom' as const,
  name: 'get_weather',
  description: 'The weather in a city',
  input_schema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] },
};
const LONG = 'A reply arrives piece by piece; the reader sees it grow before it is committed. '.repeat(3).trim();

/** What the stream yields, loosely: durable events and the two preview frames. */
type StreamEvent = {
  type: string;
  id?: string;
  event?: { id: string; type: string };
  event_id?: string;
  delta?: { type: string; index?: number; content: { type: string; text: string } };
  content?: Array<{ type: string; text: string }>;
  stop_reason?: { type: string };
};

beforeAll(async () => {
  f = await startRunApp();
  served = await serveApp(f.t.app.fetch);
}, 120_000);
afterAll(async () => {
  await served?.close();
  await f?.close();
});

/** An SDK stream read in steps: each `until` reads on until `done` holds for what it read. */
function reading(stream: AsyncIterable<unknown> & { controller: AbortController }) {
  const iterator = stream[Symbol.asyncIterator]();
  return {
    async until(done: (events: StreamEvent[]) => boolean): Promise<StreamEvent[]> {
      const events: StreamEvent[] = [];
      while (!done(events)) {
        const next = await iterator.next();
        if (next.done) throw new Error(`the stream ended after ${JSON.stringify(events.map((event) => event.type))}`);
        events.push(next.value as StreamEvent);
      }
      return events;
    },
    close: () => stream.controller.abort(),
  };
}

/** Reads a whole SDK stream until `done` holds, then leaves it. */
async function readUntil(stream: AsyncIterable<unknown> & { controller: AbortController }, done: (events: StreamEvent[]) => boolean): Promise<StreamEvent[]> {
  const reader = reading(stream);
  try {
    return await reader.until(done);
  } finally {
    reader.close();
  }
}

const idleWith = (reason: string) => (events: StreamEvent[]) =>
  events.some((event) => event.type === 'session.status_idle' && event.stop_reason?.type === reason);
const deltaText = (events: StreamEvent[], id: string) =>
  events
    .filter((event) => event.type === 'event_delta' && event.event_id === id)
    .map((event) => event.delta!.content.text)
    .join('');
const latestRunOf = async (sessionId: string): Promise<string> => (await f.call('GET', `/sessions/${sessionId}`)).body.latestRunId;

async function listed(client: Anthropic, sessionId: string): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  for await (const event of client.beta.sessions.events.list(sessionId)) events.push(event as StreamEvent);
  return events;
}

describe('event deltas through the SDK', () => {
  it('previews the reply: event_start, then deltas adding up to the agent.message that carries the same id', async () => {
    const client = sdk();
    const agent = await client.beta.agents.create({ name: 'Deltas', model: 'fast' });
    const session = await client.beta.sessions.create({ agent: agent.id, environment_id: 'env_default' });
    const withDeltas = await client.beta.sessions.events.stream(session.id, { event_deltas: ['agent.message'] });
    const without = await client.beta.sessions.events.stream(session.id);
    // Pieces a reader has not taken yet leave as one delta: 30 ms apart (about a second in all),
    // so a reader slowed by a busy host still takes them in more than two.
    f.fakes.vendor_a.reply({ text: LONG, chunkSize: 8, chunkDelayMs: 30 });
    await client.beta.sessions.events.send(session.id, { events: [{ type: 'user.message', content: [{ type: 'text', text: 'Tell me.' }] }] });
    const [events, plain] = await Promise.all([readUntil(withDeltas, idleWith('end_turn')), readUntil(without, idleWith('end_turn'))]);

    const starts = events.filter((event) => event.type === 'event_start');
    expect(starts).toHaveLength(1);
    const previewId = starts[0]!.event!.id;
    expect(starts[0]!.event).toEqual({ id: previewId, type: 'agent.message' });
    const deltas = events.filter((event) => event.type === 'event_delta');
    expect(deltas.length).toBeGreaterThan(2);
    for (const delta of deltas)
      expect(delta).toEqual({
        type: 'event_delta',
        event_id: previewId,
        delta: { type: 'content_delta', content: { type: 'text', text: expect.any(String) }, index: 0 },
      });
    const message = events.find((event) => event.type === 'agent.message')!;
    const at = (event: StreamEvent) => events.indexOf(event);
    expect(at(starts[0]!)).toBeLessThan(at(deltas[0]!));
    expect(at(deltas.at(-1)!)).toBeLessThan(at(message));
    expect(message.id).toBe(previewId);
    expect(deltaText(events, previewId)).toBe(LONG);
    expect(message.content).toEqual([{ type: 'text', text: LONG }]);
    // The id is the turn's, known before the message committed.
    expect(previewId).toBe(`sevt_${turnMessageEventId(await latestRunOf(session.id), 1)}`);
    // The SDK's own accumulator builds the same message from the preview.
    let snapshot: unknown;
    for (const event of events.slice(at(starts[0]!), at(message))) snapshot = accumulateManagedAgentsEvent(snapshot as never, event as never);
    expect(snapshot).toMatchObject({ id: previewId, type: 'agent.message', content: [{ type: 'text', text: LONG }] });

    // Without event_deltas nothing changes; deltas are never listed.
    expect(plain.map((event) => event.type)).toEqual(events.filter((event) => !event.type.startsWith('event_')).map((event) => event.type));
    const history = await listed(client, session.id);
    expect(history.filter((event) => event.type.startsWith('event_'))).toEqual([]);
    expect(history.filter((event) => event.type === 'agent.message').map((event) => event.id)).toEqual([previewId]);
  }, 60_000);

  it('a stream opened mid-reply starts its preview with the text so far', async () => {
    const client = sdk();
    const agent = await client.beta.agents.create({ name: 'Deltas joined late', model: 'fast' });
    const session = await client.beta.sessions.create({ agent: agent.id, environment_id: 'env_default' });
    const early = reading(await client.beta.sessions.events.stream(session.id, { event_deltas: ['agent.message'] }));
    f.fakes.vendor_a.reply({ text: LONG, chunkSize: 6, chunkDelayMs: 25 });
    await client.beta.sessions.events.send(session.id, { events: [{ type: 'user.message', content: [{ type: 'text', text: 'Slowly.' }] }] });
    const seen = await early.until((events) => events.filter((event) => event.type === 'event_delta').length >= 3);
    const late = await client.beta.sessions.events.stream(session.id, { event_deltas: ['agent.message'] });
    const [rest, joined] = await Promise.all([early.until(idleWith('end_turn')), readUntil(late, idleWith('end_turn'))]);
    early.close();
    const previewId = seen.find((event) => event.type === 'event_start')!.event!.id;
    expect(joined[0]).toEqual({ type: 'event_start', event: { id: previewId, type: 'agent.message' } });
    expect(joined[1]!.type).toBe('event_delta');
    expect(joined[1]!.delta!.content.text.length).toBeGreaterThanOrEqual(deltaText(seen, previewId).length);
    expect(deltaText(joined, previewId)).toBe(LONG);
    expect(deltaText([...seen, ...rest], previewId)).toBe(LONG);
    expect(joined.find((event) => event.type === 'agent.message')).toMatchObject({ id: previewId, content: [{ type: 'text', text: LONG }] });
  }, 60_000);

  it('a turn that ends in tool calls is previewed but never concluded; the reply after the result is', async () => {
    const client = sdk();
    const agent = await client.beta.agents.create({ name: 'Deltas with tools', model: 'fast', tools: [weather] });
    const session = await client.beta.sessions.create({ agent: agent.id, environment_id: 'env_default' });
    const stream = reading(await client.beta.sessions.events.stream(session.id, { event_deltas: ['agent.message'] }));
    f.fakes.vendor_a.reply({ text: 'Let me look that up.', toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }], chunkSize: 5, chunkDelayMs: 10 });
    f.fakes.vendor_a.reply({ text: 'It is sunny in Oslo.', chunkSize: 5, chunkDelayMs: 10 });
    await client.beta.sessions.events.send(session.id, { events: [{ type: 'user.message', content: [{ type: 'text', text: 'Weather in Oslo?' }] }] });
    const asked = await stream.until(idleWith('requires_action'));
    const use = asked.find((event) => event.type === 'agent.custom_tool_use')!;
    await client.beta.sessions.events.send(session.id, {
      events: [{ type: 'user.custom_tool_result', custom_tool_use_id: use.id!, content: [{ type: 'text', text: '{"sky":"clear"}' }] }],
    });
    const events = [...asked, ...(await stream.until(idleWith('end_turn')))];
    stream.close();

    const runId = await latestRunOf(session.id);
    const [first, second] = [1, 2].map((turn) => `sevt_${turnMessageEventId(runId, turn)}`) as [string, string];
    expect(events.filter((event) => event.type === 'event_start').map((event) => event.event!.id)).toEqual([first, second]);
    expect(deltaText(events, first)).toBe('Let me look that up.');
    expect(deltaText(events, second)).toBe('It is sunny in Oslo.');
    const messages = events.filter((event) => event.type === 'agent.message');
    expect(messages.map((event) => [event.id, event.content])).toEqual([[second, [{ type: 'text', text: 'It is sunny in Oslo.' }]]]);
    const history = await listed(client, session.id);
    expect(history.some((event) => event.id === first)).toBe(false);
    expect(history.filter((event) => event.type === 'agent.message').map((event) => event.id)).toEqual([second]);
  }, 60_000);

  it('an abandoned attempt starts its preview again with the same id; the retry is what commits', async () => {
    const client = sdk();
    const agent = await client.beta.agents.create({ name: 'Deltas retried', model: 'fast' });
    const session = await client.beta.sessions.create({ agent: agent.id, environment_id: 'env_default' });
    const stream = await client.beta.sessions.events.stream(session.id, { event_deltas: ['agent.message'] });
    f.fakes.vendor_a.failMidStream({ text: 'This first attempt breaks off halfway', chunkSize: 5, chunkDelayMs: 10, afterChunks: 3 });
    f.fakes.vendor_a.reply({ text: 'The second attempt is whole.', chunkSize: 5, chunkDelayMs: 10 });
    await client.beta.sessions.events.send(session.id, { events: [{ type: 'user.message', content: [{ type: 'text', text: 'Try.' }] }] });
    const events = await readUntil(stream, idleWith('end_turn'));

    const starts = events.filter((event) => event.type === 'event_start');
    expect(starts, JSON.stringify(events.map((event) => event.type))).toHaveLength(2);
    const previewId = starts[0]!.event!.id;
    expect(starts[1]!.event!.id).toBe(previewId);
    const restart = events.indexOf(starts[1]!);
    // The reset itself restarts the preview: before the retry is even scheduled.
    const retrying = events.findIndex((event) => event.type === 'session.error');
    expect(retrying).toBeGreaterThan(restart);
    expect(deltaText(events.slice(restart, retrying), previewId)).toBe('');
    const abandoned = deltaText(events.slice(0, restart), previewId);
    expect(abandoned.length).toBeGreaterThan(0);
    expect('This first attempt breaks off halfway'.startsWith(abandoned)).toBe(true);
    expect(deltaText(events.slice(restart), previewId)).toBe('The second attempt is whole.');
    const message = events.find((event) => event.type === 'agent.message')!;
    expect(message).toMatchObject({ id: previewId, content: [{ type: 'text', text: 'The second attempt is whole.' }] });
    let snapshot: unknown;
    for (const event of events.slice(0, events.indexOf(message))) snapshot = accumulateManagedAgentsEvent(snapshot as never, event as never);
    expect(snapshot).toMatchObject({ id: previewId, content: [{ type: 'text', text: 'The second attempt is whole.' }] });
  }, 90_000);

  it('a repeated finish of a committed turn (a retried activity) writes no second message or event', async () => {
    const client = sdk();
    const agent = await client.beta.agents.create({ name: 'Deltas idempotent', model: 'fast' });
    f.fakes.vendor_a.reply({ text: 'Only once.' });
    const session = await client.beta.sessions.create({
      agent: agent.id,
      environment_id: 'env_default',
      initial_events: [{ type: 'user.message', content: [{ type: 'text', text: 'Once?' }] }],
    });
    const runId = await latestRunOf(session.id);
    await f.waitForRun(runId);
    const eventId = turnMessageEventId(runId, 1);
    const assistantEvents = () =>
      f.t.database.db
        .select({ id: productEvents.id })
        .from(productEvents)
        .where(
          and(eq(productEvents.kind, 'message.created'), eq(productEvents.sessionId, session.id), sql`${productEvents.publicPayload}->>'role' = 'assistant'`),
        );
    expect(await assistantEvents()).toEqual([{ id: eventId }]);
    const ctx = systemContext({ db: f.t.database.db, logger: f.t.deps.logger });
    const outcome = {
      kind: 'succeeded' as const,
      text: 'Only once.',
      toolCalls: [],
      replay: null,
      usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
      finishReason: 'stop',
      providerFinishReason: null,
      thinking: null,
      prices: null,
    };
    await finishModelTurn({ ctx, input: { runId, turnId: 'turn-1', attempt: 1, outcome } });
    expect(await assistantEvents()).toEqual([{ id: eventId }]);
  }, 60_000);
});

describe('event deltas on the raw stream', () => {
  it('frames event_start and event_delta with their event name and no id; unknown kinds are a 400', async () => {
    const client = sdk();
    const agent = await client.beta.agents.create({ name: 'Raw deltas', model: 'fast' });
    const session = await client.beta.sessions.create({ agent: agent.id, environment_id: 'env_default' });
    const query = new URLSearchParams([['event_deltas[]', 'agent.message']]);
    const abort = new AbortController();
    const response = await fetch(`${served.baseUrl}/compat/anthropic/v1/sessions/${session.id}/events/stream?${query}`, {
      headers: { authorization: `Bearer ${f.apiKey}` },
      signal: abort.signal,
    });
    expect(response.status).toBe(200);
    f.fakes.vendor_a.reply({ text: 'Hello in pieces.', chunkSize: 3, chunkDelayMs: 10 });
    await client.beta.sessions.events.send(session.id, { events: [{ type: 'user.message', content: [{ type: 'text', text: 'Hi' }] }] });
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes('event: session.status_idle')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    abort.abort();
    expect(text).toMatch(/\n\nevent: event_start\ndata: \{"type":"event_start","event":\{"id":"sevt_[0-9a-f-]{36}","type":"agent.message"\}\}\n\n/);
    expect(text).toContain('\n\nevent: event_delta\ndata: {"type":"event_delta","event_id":"sevt_');
    const frames = text.split('\n\n').filter((frame) => frame.includes('data: '));
    const parsed = frames.map((frame) => {
      const lines = Object.fromEntries(frame.split('\n').map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 2)]));
      const data = JSON.parse(lines.data!) as { type: string; id?: string };
      expect(lines.event).toBe(data.type);
      if (data.type.startsWith('event_')) expect(lines.id).toBeUndefined();
      else expect(lines.id).toBe(data.id);
      return data;
    });
    expect(parsed.filter((event) => event.type === 'event_start')).toHaveLength(1);
    expect(parsed.map((event) => event.type).filter((type) => !type.startsWith('event_'))).toEqual([
      'user.message',
      'session.status_running',
      'agent.message',
      'session.status_idle',
    ]);

    const refused = await fetch(
      `${served.baseUrl}/compat/anthropic/v1/sessions/${session.id}/events/stream?${new URLSearchParams([['event_deltas[]', 'agent.nothing']])}`,
      { headers: { authorization: `Bearer ${f.apiKey}` } },
    );
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { type: string } }).error.type).toBe('invalid_request_error');
    const viaSdk = await client.beta.sessions.events.stream(session.id, { event_deltas: ['agent.nothing' as never] }).catch((error: unknown) => error);
    expect(viaSdk).toBeInstanceOf(BadRequestError);
  }, 60_000);
});
