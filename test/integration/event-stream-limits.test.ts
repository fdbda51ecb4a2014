import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.ts';
import { serveApp, type ServedApp } from '../support/http-server.ts';

/**
 * Concurrent event streams are bounded per key (or person) and per project in each API process
 * (issue 28; docs/decisions/event-stream-limits.md), over a real HTTP server so the streams
 * really stay open: past a bound `429 rate_limited` with `Retry-After`; a stream's place is
 * freed when its client goes away.
 */
const PER_PRINCIPAL = 3;
const PER_PROJECT = 5;

let t: TestApp;
let served: ServedApp;
let projectId: string;
let first: string;
let second: string;
let third: string;

beforeAll(async () => {
  t = await createTestApp({
    env: {
      SVC_EVENT_STREAMS_PER_PRINCIPAL: String(PER_PRINCIPAL),
      SVC_EVENT_STREAMS_PER_PROJECT: String(PER_PROJECT),
      // Request limits are not under test here (rate-limits.test.ts).
      SVC_RATE_LIMIT_API_KEY_PER_SECOND: '0',
      SVC_RATE_LIMIT_PROJECT_PER_SECOND: '0',
    },
  });
  projectId = (await t.login()).context.project.id;
  first = (await t.createApiKey(['run:read'], 'first')).secret;
  second = (await t.createApiKey(['run:read'], 'second')).secret;
  third = (await t.createApiKey(['run:read'], 'third')).secret;
  served = await serveApp(t.app.fetch);
});
afterAll(async () => {
  await served?.close();
  await t?.close();
});

type Caller = { apiKey: string } | { cookie: string };
type Feed = { response: Response; close(): void };
const open: Feed[] = [];

/** Opens the project's feed over HTTP and leaves it open (the answer's headers have arrived). */
async function openFeed(caller: Caller, query = '', method = 'GET'): Promise<Feed> {
  const controller = new AbortController();
  const auth: Record<string, string> = 'apiKey' in caller ? { authorization: `Bearer ${caller.apiKey}` } : { cookie: caller.cookie };
  const response = await fetch(`${served.baseUrl}/v1/projects/${projectId}/events${query}`, {
    method,
    headers: { accept: 'text/event-stream', ...auth },
    signal: controller.signal,
  });
  const feed = { response, close: () => controller.abort() };
  if (response.status === 200 && query === '' && method === 'GET') open.push(feed);
  return feed;
}

async function expectRefused(feed: Feed, limit: string) {
  expect(feed.response.status).toBe(429);
  expect(feed.response.headers.get('retry-after')).toBe('5');
  const body = (await feed.response.json()) as { error: { message: string; requestId: string } };
  expect(body.error).toMatchObject({ code: 'rate_limited', details: { limit } });
  expect(body.error.requestId).toBe(feed.response.headers.get('x-request-id'));
  expect(body.error.message).toMatch(/event streams/);
}

async function waitForSubscribers(expected: number) {
  for (let i = 0; i < 3_000 && t.deps.eventTail.stats().subscribers !== expected; i++) await sleep(10);
  expect(t.deps.eventTail.stats().subscribers).toBe(expected);
}

async function closeAll() {
  for (const feed of open.splice(0)) feed.close();
  await waitForSubscribers(0);
}

describe('concurrent event streams', () => {
  it('refuses the stream past a key’s bound, lets another key of the project open streams up to the project’s bound, and frees a place when a client leaves', async () => {
    const ofFirst = [];
    for (let i = 0; i < PER_PRINCIPAL; i++) ofFirst.push(await openFeed({ apiKey: first }));
    expect(ofFirst.map((feed) => feed.response.status)).toEqual([200, 200, 200]);
    await expectRefused(await openFeed({ apiKey: first }), 'principal_event_streams');
    // A page counts as a stream while it is read.
    await expectRefused(await openFeed({ apiKey: first }, '?once=true'), 'principal_event_streams');

    // Another key of the same project has places of its own, up to the project's bound.
    for (let i = 0; i < PER_PROJECT - PER_PRINCIPAL; i++) expect((await openFeed({ apiKey: second })).response.status).toBe(200);
    await expectRefused(await openFeed({ apiKey: second }), 'project_event_streams');
    await expectRefused(await openFeed({ apiKey: third }), 'project_event_streams');
    await waitForSubscribers(PER_PROJECT);

    // A client that goes away frees its place.
    ofFirst[0]!.close();
    await waitForSubscribers(PER_PROJECT - 1);
    expect((await openFeed({ apiKey: third })).response.status).toBe(200);
    await expectRefused(await openFeed({ apiKey: second }), 'project_event_streams');

    await closeAll();
    for (let i = 0; i < PER_PRINCIPAL; i++) expect((await openFeed({ apiKey: first })).response.status).toBe(200);
    await closeAll();
  });

  it('holds a place for a once=true page only while it is read', async () => {
    for (let i = 0; i < PER_PRINCIPAL - 1; i++) expect((await openFeed({ apiKey: first })).response.status).toBe(200);
    for (let i = 0; i < 10; i++) {
      const page = await openFeed({ apiKey: first }, '?once=true');
      expect(page.response.status).toBe(200);
      await page.response.text();
    }
    await closeAll();
  });

  it('bounds a person’s browser sessions together, like a key', async () => {
    const one = (await t.login()).cookie;
    const other = (await t.login()).cookie;
    for (const cookie of [one, one, other]) expect((await openFeed({ cookie })).response.status).toBe(200);
    await expectRefused(await openFeed({ cookie: other }), 'principal_event_streams');
    // A key of the same project still has its own places.
    expect((await openFeed({ apiKey: first })).response.status).toBe(200);
    await closeAll();
  });

  it('answers HEAD with the headers alone, holding no place and no subscription', async () => {
    for (let i = 0; i < PER_PROJECT + 1; i++) {
      const head = await openFeed({ apiKey: first }, '', 'HEAD');
      expect(head.response.status).toBe(200);
      expect(head.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    }
    await sleep(100);
    expect(t.deps.eventTail.stats().subscribers).toBe(0);
    for (let i = 0; i < PER_PRINCIPAL; i++) expect((await openFeed({ apiKey: first })).response.status).toBe(200);
    await closeAll();
  });
});
