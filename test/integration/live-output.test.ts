import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages, productEvents } from '../../db/schema/index.ts';
import { FAKE_KEYS } from '../fixtures/model-vendors/catalog-server.ts';
import { newSigningSecret, startWebhookReceiver, type WebhookReceiver } from '../fixtures/webhook-receiver/receiver.ts';
import type { ProviderType } from '../fixtures/model-vendors/chat-server.ts';
import { startRunApp } from '../support/run-app.ts';
import { assembledText, assistantMessagesCreated, deltasOf, takeSseFrames, type SseFrame } from '../support/sse-frames.ts';

/**
 * Live model output (issue 30): a session stream with `deltas=true` carries `message.delta`
 * frames (no `id:`) while the fake vendor streams, for each of the four wire protocols; their
 * concatenation by offset is exactly the committed message; a reconnect catches up at offset 0; a
 * retried attempt is announced by `message.delta_reset`. Real worker, real streams, real HTTP.
 */
type Frame = SseFrame;

let app: Awaited<ReturnType<typeof startRunApp>>;
let readKey: string;
let withContent: WebhookReceiver;
let without: WebhookReceiver;
const agents = {} as Record<ProviderType, string>;
const MODELS: Record<ProviderType, string> = {
  vendor_a: 'vendor_a/gpt-5.1',
  vendor_b: 'vendor_b/claude-opus-4-6',
  vendor_c: 'vendor_c/gemini-2.5-pro',
  gateway: 'gateway/anthropic/claude-sonnet-4.5',
};
const LONG = 'Streams arrive piece by piece; the reader sees the answer grow before it is committed. '.repeat(3).trim();

beforeAll(async () => {
  app = await startRunApp({ env: { SVC_OUTBOUND_ALLOW_PRIVATE_NETWORK: 'true' } });
  withContent = await startWebhookReceiver();
  without = await startWebhookReceiver();
  readKey = (await app.t.createApiKey(['run:read'])).secret;
  for (const type of Object.keys(MODELS) as ProviderType[]) {
    let providerId: string;
    if (type === 'vendor_a')
      providerId = (await app.call('GET', '/model-providers')).body.data.find((provider: { key: string }) => provider.key === 'openai').id;
    else {
      const provider = await app.call('POST', '/model-providers', { key: `live-${type}`, displayName: type, providerType: type, apiKey: FAKE_KEYS[type] });
      expect(provider.status, JSON.stringify(provider.body)).toBe(201);
      providerId = provider.body.id;
    }
    const preset = await app.call('POST', '/model-presets', {
      key: `live-${type.replace('_', '-')}`,
      displayName: type,
      providerId,
      model: MODELS[type],
      routing: {},
    });
    expect(preset.status, JSON.stringify(preset.body)).toBe(201);
    const agent = await app.call('POST', '/agents', {
      name: `Live ${type}`,
      initialConfig: { systemPrompt: 'Answer.', modelPreset: preset.body.key, limits: { maxTurns: 4 } },
    });
    expect(agent.status, JSON.stringify(agent.body)).toBe(201);
    agents[type] = agent.body.id;
  }
});
afterAll(async () => {
  await app?.close();
  await withContent?.close();
  await without?.close();
});

/** An open session stream: frames as they arrive, until `stop()`. */
async function openStream(sessionId: string, headers: Record<string, string> = {}) {
  const response = await app.t.request('GET', `/v1/projects/${app.projectId}/sessions/${sessionId}/events?deltas=true`, {
    apiKey: readKey,
    headers: { accept: 'text/event-stream', ...headers },
  });
  expect(response.status).toBe(200);
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const frames: Frame[] = [];
  let buffered = '';
  return {
    frames,
    /** Reads until `done(frames)` holds. */
    async until(done: (frames: Frame[]) => boolean, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      while (!done(frames)) {
        if (Date.now() > deadline) throw new Error(`timed out with ${JSON.stringify(frames.map((frame) => frame.event))}`);
        const { value, done: ended } = await reader.read();
        if (ended) throw new Error('the stream ended');
        const parsed = takeSseFrames(buffered + decoder.decode(value, { stream: true }));
        buffered = parsed.rest;
        frames.push(...parsed.frames);
      }
      return frames;
    },
    stop: () => reader.cancel(),
  };
}

const assistantCommitted = (frames: Frame[]) => assistantMessagesCreated(frames).length > 0;

async function committedText(runId: string): Promise<string> {
  const listed = await app.call('GET', `/runs/${runId}/messages`);
  return listed.body.data.filter((message: { role: string }) => message.role === 'assistant').at(-1).text;
}

describe('live output on the session stream', () => {
  it.each(['vendor_a', 'vendor_b', 'vendor_c', 'gateway'] as const)(
    '%s: deltas arrive before message.created and add up to the committed text',
    async (type) => {
      app.fakes[type].reply({ text: LONG, chunkSize: 12, chunkDelayMs: 15 });
      // The stream opens before the run starts, so a slow host cannot make it miss the deltas.
      const session = await app.call('POST', '/sessions', { agentId: agents[type] });
      expect(session.status, JSON.stringify(session.body)).toBe(201);
      const stream = await openStream(session.body.id);
      const run = await app.call('POST', `/sessions/${session.body.id}/runs`, { message: 'Tell me.' });
      expect(run.status, JSON.stringify(run.body)).toBe(202);
      const created = { body: { latestRunId: run.body.id as string } };
      const frames = await stream.until(assistantCommitted);
      await stream.stop();
      const beforeCommit = frames.slice(
        0,
        frames.findIndex((frame) => frame.event === 'message.created' && JSON.parse(frame.data!).publicPayload.role === 'assistant'),
      );
      expect(deltasOf(beforeCommit).length).toBeGreaterThan(2);
      for (const frame of frames.filter((entry) => entry.event?.startsWith('message.delta'))) expect(frame.id).toBeNull();
      expect(deltasOf(frames).every((delta) => delta.runId === created.body.latestRunId && delta.turn === 1 && delta.attempt === 1)).toBe(true);
      expect(assembledText(frames)).toBe(LONG);
      expect(await committedText(created.body.latestRunId)).toBe(LONG);
    },
  );

  it('a reconnect mid-message starts with the text so far at offset 0, and the final text is exact', async () => {
    app.fakes.vendor_a.reply({ text: LONG, chunkSize: 6, chunkDelayMs: 25 });
    const created = await app.call('POST', '/sessions', { agentId: agents.vendor_a, initialMessage: 'Again.' });
    const first = await openStream(created.body.id);
    const before = await first.until((frames) => deltasOf(frames).length >= 3);
    await first.stop();
    const lastDurable = before.filter((frame) => frame.id).at(-1)!;
    const second = await openStream(created.body.id, { 'last-event-id': lastDurable.id! });
    const after = await second.until(assistantCommitted);
    await second.stop();
    const firstDelta = deltasOf(after)[0]!;
    expect(firstDelta.offset).toBe(0);
    expect(firstDelta.text.length).toBeGreaterThanOrEqual(assembledText(before).length);
    expect(LONG.startsWith(firstDelta.text)).toBe(true);
    expect(assembledText(after)).toBe(LONG);
    // The resumed stream repeats no durable frame the first one had.
    const seen = new Set(before.filter((frame) => frame.id).map((frame) => frame.id));
    expect(after.filter((frame) => frame.id && seen.has(frame.id))).toEqual([]);
  });

  it('a model call that fails after sending text is reset; the retry streams from offset 0 and is what commits', async () => {
    app.fakes.vendor_b.failMidStream({ text: 'This first attempt breaks off halfway', chunkSize: 5, chunkDelayMs: 10, afterChunks: 3 });
    app.fakes.vendor_b.reply({ text: 'The second attempt is whole.', chunkSize: 5, chunkDelayMs: 10 });
    const created = await app.call('POST', '/sessions', { agentId: agents.vendor_b, initialMessage: 'Try.' });
    const stream = await openStream(created.body.id);
    const frames = await stream.until(assistantCommitted, 60_000);
    await stream.stop();
    const resetAt = frames.findIndex((frame) => frame.event === 'message.delta_reset');
    expect(resetAt, JSON.stringify(frames.map((frame) => frame.event))).toBeGreaterThan(0);
    expect(JSON.parse(frames[resetAt]!.data!)).toEqual({ runId: created.body.latestRunId, turn: 1, attempt: 1 });
    expect(deltasOf(frames.slice(0, resetAt)).length).toBeGreaterThan(0);
    const retried = deltasOf(frames.slice(resetAt + 1));
    expect(retried[0]).toMatchObject({ attempt: 2, offset: 0 });
    expect(assembledText(frames)).toBe('The second attempt is whole.');
    expect(await committedText(created.body.latestRunId)).toBe('The second attempt is whole.');
  });

  it('stores nothing per delta', async () => {
    const rowsOf = async (sessionId: string, runId: string) => ({
      events: (await app.t.database.db.select({ n: count() }).from(productEvents).where(eq(productEvents.sessionId, sessionId)))[0]!.n,
      messages: (await app.t.database.db.select({ n: count() }).from(messages).where(eq(messages.runId, runId)))[0]!.n,
    });
    // Pieces that arrive together are sent as one delta: the many arrive apart (10 ms).
    const run = async (chunkSize: number, chunkDelayMs: number) => {
      app.fakes.vendor_a.reply({ text: LONG, chunkSize, chunkDelayMs });
      const session = await app.call('POST', '/sessions', { agentId: agents.vendor_a });
      const stream = await openStream(session.body.id);
      const created = await app.call('POST', `/sessions/${session.body.id}/runs`, { message: 'Count.' });
      const frames = await stream.until(assistantCommitted);
      await stream.stop();
      return { deltas: deltasOf(frames).length, rows: await rowsOf(session.body.id, created.body.id) };
    };
    const many = await run(8, 10);
    const one = await run(10_000, 0);
    expect(many.deltas).toBeGreaterThan(one.deltas);
    expect(many.rows).toEqual(one.rows);
  });

  it('never sends a delta to a webhook, with or without message content', async () => {
    for (const [receiver, includeMessageContent] of [
      [withContent, true],
      [without, false],
    ] as const) {
      const webhook = await app.call('POST', '/event-webhooks', {
        displayName: `Live ${includeMessageContent}`,
        endpointUrl: receiver.url,
        signingSecret: newSigningSecret(),
        includeMessageContent,
      });
      expect(webhook.status, JSON.stringify(webhook.body)).toBe(201);
    }
    app.fakes.vendor_c.reply({ text: LONG, chunkSize: 4, chunkDelayMs: 5 });
    const created = await app.call('POST', '/sessions', { agentId: agents.vendor_c, initialMessage: 'Hook.' });
    const stream = await openStream(created.body.id);
    const frames = await stream.until(assistantCommitted);
    await stream.stop();
    expect(deltasOf(frames).length).toBeGreaterThan(2);
    const delivered = (receiver: WebhookReceiver) =>
      receiver.requests.flatMap(
        (request) =>
          (request.body?.data?.events ?? []) as Array<{ kind: string; publicPayload: { runId?: string; role?: string }; message?: { text?: string } }>,
      );
    for (const receiver of [withContent, without]) {
      await receiver.waitFor(
        () =>
          delivered(receiver).some(
            (event) => event.kind === 'message.created' && event.publicPayload.runId === created.body.latestRunId && event.publicPayload.role === 'assistant',
          ),
        30_000,
      );
      const kinds = delivered(receiver).map((event) => event.kind);
      expect(kinds.filter((kind) => kind.startsWith('message.delta'))).toEqual([]);
      // Every delivered event is a durable one: it has a position in the log.
      for (const event of delivered(receiver)) expect((event as { projectPosition?: string }).projectPosition).toMatch(/^[0-9]+$/);
    }
    // Message content reaches the opted-in webhook only through the durable message.created.
    const opted = delivered(withContent).find(
      (event) => event.kind === 'message.created' && event.publicPayload.runId === created.body.latestRunId && event.publicPayload.role === 'assistant',
    )!;
    expect(JSON.stringify(opted.message)).toContain(LONG.slice(0, 40));
  });

  it('refuses deltas=maybe', async () => {
    const created = await app.call('POST', '/sessions', { agentId: agents.vendor_a, initialMessage: 'Hi.' });
    const response = await app.t.request('GET', `/v1/projects/${app.projectId}/sessions/${created.body.id}/events?deltas=maybe`, { apiKey: readKey });
    expect(response.status).toBe(400);
    expect((await response.json()).error.details).toMatchObject({ path: 'query.deltas' });
  });
});
