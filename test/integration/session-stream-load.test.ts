import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startRunApp } from '../support/run-app.ts';

/**
 * Hostile load on the session stream (issue 30): 1,000 `deltas=true` streams opened at once and
 * closed again leave no subscriber, no live-output reader and no project feed behind. The
 * per-caller stream and request limits are off here (they have their own tests).
 */
let app: Awaited<ReturnType<typeof startRunApp>>;

// What the streams retain, not the garbage the requests left (the test process is shared with
// other files, so uncollected garbage of any size can sit in the heap): collect before measuring.
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;
const retainedHeap = () => {
  collectGarbage();
  return process.memoryUsage().heapUsed;
};

beforeAll(async () => {
  app = await startRunApp({
    runtime: 'later',
    env: {
      SVC_EVENT_STREAMS_PER_PRINCIPAL: '0',
      SVC_EVENT_STREAMS_PER_PROJECT: '0',
      SVC_RATE_LIMIT_API_KEY_PER_SECOND: '0',
      SVC_RATE_LIMIT_PROJECT_PER_SECOND: '0',
    },
  });
});
afterAll(() => app?.close());

it('opens and closes 1,000 session streams without leaking subscribers or listeners', async () => {
  const agent = await app.call('POST', '/agents', { name: 'Quiet', initialConfig: { systemPrompt: 'Hi.', modelPreset: 'fast', limits: { maxTurns: 2 } } });
  expect(agent.status, JSON.stringify(agent.body)).toBe(201);
  const sessions: string[] = [];
  for (let i = 0; i < 10; i++) sessions.push((await app.call('POST', '/sessions', { agentId: agent.body.id, initialMessage: `Session ${i}` })).body.id);
  const heapBefore = retainedHeap();
  const streams = await Promise.all(
    Array.from({ length: 1000 }, async (_, i) => {
      const response = await app.t.request('GET', `/v1/projects/${app.projectId}/sessions/${sessions[i % sessions.length]}/events?deltas=true&from=now`, {
        apiKey: app.apiKey,
        headers: { accept: 'text/event-stream' },
      });
      expect(response.status).toBe(200);
      const reader = response.body!.getReader();
      // The first pull subscribes the stream to the live output.
      void reader.read().catch(() => {});
      return reader;
    }),
  );
  const deadline = Date.now() + 10_000;
  while ((app.t.deps.eventTail.stats().subscribers < 1000 || app.t.deps.messageDeltas.stats().subscribers < 1000) && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 20));
  expect(app.t.deps.eventTail.stats().subscribers).toBe(1000);
  expect(app.t.deps.messageDeltas.stats()).toMatchObject({ subscribers: 1000, sessions: 10 });
  const heapOpen = retainedHeap() - heapBefore;

  await Promise.all(streams.map((reader) => reader.cancel()));
  const closed = Date.now() + 10_000;
  while ((app.t.deps.eventTail.stats().subscribers > 0 || app.t.deps.messageDeltas.stats().subscribers > 0) && Date.now() < closed)
    await new Promise((resolve) => setTimeout(resolve, 20));
  expect(app.t.deps.eventTail.stats()).toMatchObject({ subscribers: 0, projects: 0 });
  expect(app.t.deps.messageDeltas.stats()).toMatchObject({ subscribers: 0, sessions: 0 });
  // A thousand open streams retain well under 100 MiB of heap here (the bench measures RSS).
  console.log(`retained by 1,000 open streams: ${(heapOpen / 1024 / 1024).toFixed(1)} MiB`);
  expect(heapOpen).toBeLessThan(100 * 1024 * 1024);
}, 120_000);
