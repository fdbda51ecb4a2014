import { randomUUID } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { serve, type ServerType } from '@hono/node-server';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppEnv } from '../../api/env.ts';
import { handleError } from '../../api/errors.ts';
import { eventRoutes } from '../../api/routes/events.ts';
import { organizations, projects } from '../../db/schema/index.ts';
import { decodeEventCursor, encodeEventCursor } from '../../domain/event-cursor.ts';
import { type Actor, type ServiceContext, systemContext } from '../../services/kernel/service-context.ts';
import { appendProductEvent } from '../../services/kernel/events/index.ts';
import { createTestApp, type TestApp } from '../support/app.ts';

type Frame = { id?: string; event?: string; data?: string; comment?: string };

let t: TestApp;
let projectId: string;
let organizationId: string;
let readKey: string;
const aggregateId = randomUUID();

beforeAll(async () => {
  t = await createTestApp();
  const login = await t.login();
  projectId = login.context.project.id;
  organizationId = login.context.organization.id;
  readKey = (await t.createApiKey(['run:read'])).secret;
  await append(5);
});
afterAll(() => t?.close());

function serviceContext(): ServiceContext {
  return systemContext({ db: t.database.db, logger: t.deps.logger, clock: t.deps.clock });
}

async function append(count: number, kind = 'run.progressed') {
  for (let i = 0; i < count; i++) {
    await appendProductEvent(serviceContext(), { organizationId, projectId, aggregateType: 'run', aggregateId, kind, publicPayload: { i } });
  }
}

/** Parses complete SSE blocks; returns them and the unparsed remainder. */
function parseFrames(text: string): { frames: Frame[]; rest: string } {
  const blocks = text.split('\n\n');
  const rest = blocks.pop()!;
  const frames = blocks.map((block) => {
    const frame: Frame = {};
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) frame.comment = line.slice(1).trim();
      else {
        const [field, ...value] = line.split(': ');
        frame[field as 'id' | 'event' | 'data'] = value.join(': ');
      }
    }
    return frame;
  });
  return { frames, rest };
}

const positionsOf = (frames: Frame[]) => frames.filter((frame) => frame.id).map((frame) => Number(decodeEventCursor(frame.id!, projectId)));
const feed = (query = '', headers: Record<string, string> = {}) =>
  t.request('GET', `/v1/projects/${projectId}/events${query}`, { apiKey: readKey, headers: { accept: 'text/event-stream', ...headers } });

/** Reads a live stream until `count` event frames (and any comments) arrived, then cancels it. */
async function readLive(body: ReadableStream<Uint8Array>, count: number, whileWaiting?: () => Promise<void>): Promise<Frame[]> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const frames: Frame[] = [];
  let buffered = '';
  const pending = whileWaiting?.();
  const deadline = Date.now() + 20_000;
  while (frames.filter((frame) => frame.id).length < count) {
    if (Date.now() > deadline) throw new Error(`timed out with ${frames.length} frames`);
    const { value, done } = await reader.read();
    if (done) break;
    const parsed = parseFrames(buffered + decoder.decode(value, { stream: true }));
    frames.push(...parsed.frames);
    buffered = parsed.rest;
  }
  await pending;
  await reader.cancel();
  return frames;
}

async function waitForSubscribers(expected: number) {
  for (let i = 0; i < 3_000 && t.deps.eventTail.stats().subscribers !== expected; i++) await sleep(10);
  expect(t.deps.eventTail.stats().subscribers).toBe(expected);
}

describe('GET /projects/{projectId}/events?from=', () => {
  it('starts after the newest event with from=now, lets a cursor win, and refuses other values', async () => {
    expect(parseFrames(await (await feed('?once=true&from=now')).text()).frames).toEqual([]);
    expect(parseFrames(await (await feed('?once=true&from=start&limit=2')).text()).frames).toHaveLength(2);
    const first = parseFrames(await (await feed('?once=true&limit=1')).text()).frames[0]!;
    expect(parseFrames(await (await feed('?once=true&from=now&limit=1', { 'last-event-id': first.id! })).text()).frames).toHaveLength(1);
    const refused = await feed('?once=true&from=later');
    expect(refused.status).toBe(400);
    expect((await refused.json()).error).toMatchObject({ code: 'bad_request', details: { path: 'query.from' } });
  });
});

describe('GET /projects/{projectId}/events?once=true', () => {
  it('returns the available page from the beginning, with cursor ids, kinds and public events', async () => {
    const response = await feed('?once=true');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('x-accel-buffering')).toBe('no');
    const { frames, rest } = parseFrames(await response.text());
    expect(rest).toBe('');
    expect(positionsOf(frames)).toEqual([1, 2, 3, 4, 5]);
    expect(frames[0]!.event).toBe('run.progressed');
    expect(frames[0]!.id).toBe(encodeEventCursor(projectId, 1n));
    const event = JSON.parse(frames[0]!.data!);
    expect(Object.keys(event).sort()).toEqual(
      [
        'aggregateId',
        'aggregateSequence',
        'aggregateType',
        'id',
        'kind',
        'occurredAt',
        'organizationId',
        'projectId',
        'projectPosition',
        'publicPayload',
      ].sort(),
    );
    expect(event).toMatchObject({
      projectId,
      organizationId,
      aggregateId,
      aggregateSequence: 1,
      projectPosition: '1',
      kind: 'run.progressed',
      publicPayload: { i: 0 },
    });
    expect(event.occurredAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('pages with limit and resumes after Last-Event-ID or the cursor query', async () => {
    const first = parseFrames(await (await feed('?once=true&limit=2')).text()).frames;
    expect(positionsOf(first)).toEqual([1, 2]);
    const byHeader = parseFrames(await (await feed('?once=true&limit=2', { 'last-event-id': first[1]!.id! })).text()).frames;
    expect(positionsOf(byHeader)).toEqual([3, 4]);
    const byQuery = parseFrames(await (await feed(`?once=true&cursor=${byHeader[1]!.id!}`)).text()).frames;
    expect(positionsOf(byQuery)).toEqual([5]);
    // The header wins over the query parameter.
    const both = parseFrames(await (await feed(`?once=true&cursor=${first[1]!.id!}`, { 'last-event-id': byHeader[1]!.id! })).text()).frames;
    expect(positionsOf(both)).toEqual([5]);
    const end = await feed('?once=true', { 'last-event-id': encodeEventCursor(projectId, 5n) });
    expect(end.status).toBe(200);
    expect(await end.text()).toBe('');
  });

  it('never includes message content', async () => {
    const before = await lastPosition();
    await appendProductEvent(serviceContext(), {
      organizationId,
      projectId,
      aggregateType: 'message',
      aggregateId: randomUUID(),
      kind: 'message.created',
      publicPayload: { role: 'user' },
      message: { id: randomUUID(), runId: randomUUID(), role: 'user', content: 'secret words' },
    });
    const text = await (await feed('?once=true', { 'last-event-id': encodeEventCursor(projectId, BigInt(before)) })).text();
    const { frames } = parseFrames(text);
    expect(frames.map((frame) => frame.event)).toEqual(['message.created']);
    expect(JSON.parse(frames[0]!.data!)).not.toHaveProperty('message');
    expect(text).not.toContain('secret words');
  });

  it('answers malformed, foreign and out-of-range input with the 400 envelope', async () => {
    const [org] = await t.database.db
      .insert(organizations)
      .values({ slug: `feed-${randomUUID()}`, name: 'Other' })
      .returning();
    const [foreign] = await t.database.db.insert(projects).values({ organizationId: org!.id, slug: 'foreign', name: 'F' }).returning();
    const cases: Array<[string, Record<string, string>, RegExp]> = [
      ['?once=true', { 'last-event-id': 'garbage!' }, /Invalid event cursor: it is not a cursor/],
      ['?once=true', { 'last-event-id': encodeEventCursor(foreign!.id, 1n) }, /Invalid event cursor: it belongs to another project/],
      ['?once=true&cursor=AAAA', {}, /Invalid event cursor/],
      ['', { 'last-event-id': encodeEventCursor(foreign!.id, 1n) }, /another project/],
      ['?once=true&limit=0', {}, /query.limit/],
      ['?once=true&limit=1001', {}, /query.limit/],
      ['?once=true&limit=ten', {}, /query.limit/],
      ['?once=yes', {}, /query.once/],
    ];
    for (const [query, headers, message] of cases) {
      const response = await feed(query, headers);
      expect(response.status, query).toBe(400);
      const body = await response.json();
      expect(body.error.code).toBe('bad_request');
      expect(body.error.message).toMatch(message);
      expect(body.error.requestId).toBe(response.headers.get('x-request-id'));
    }
  });

  it('needs run:read and a key', async () => {
    const { secret } = await t.createApiKey(['agent:read']);
    const denied = await t.request('GET', `/v1/projects/${projectId}/events?once=true`, { apiKey: secret });
    expect(denied.status).toBe(403);
    expect((await denied.json()).error.message).toContain('run:read');
    expect((await t.request('GET', `/v1/projects/${projectId}/events?once=true`)).status).toBe(401);
  });
});

async function lastPosition(): Promise<number> {
  const { frames } = parseFrames(await (await feed('?once=true&limit=1000')).text());
  return positionsOf(frames).at(-1) ?? 0;
}

describe('GET /projects/{projectId}/events (live)', () => {
  it('streams history, then new commits, and unsubscribes when the client goes away', async () => {
    const last = await lastPosition();
    const response = await feed('', { 'last-event-id': encodeEventCursor(projectId, BigInt(last - 2)) });
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('x-accel-buffering')).toBe('no');
    const frames = await readLive(response.body!, 5, async () => {
      await waitForSubscribers(1);
      await append(3);
    });
    expect(positionsOf(frames)).toEqual([last - 1, last, last + 1, last + 2, last + 3]);
    await waitForSubscribers(0);
  });

  it('serves real HTTP clients and stops cleanly when they disconnect', async () => {
    const server = await new Promise<ServerType>((resolve) => {
      const started = serve({ fetch: t.app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(started));
    });
    try {
      const { port } = server.address() as AddressInfo;
      const last = await lastPosition();
      const received: Frame[] = [];
      const request = http.get({
        host: '127.0.0.1',
        port,
        path: `/v1/projects/${projectId}/events`,
        headers: { authorization: `Bearer ${readKey}`, accept: 'text/event-stream', 'last-event-id': encodeEventCursor(projectId, BigInt(last)) },
      });
      const response = await new Promise<http.IncomingMessage>((resolve) => request.on('response', resolve));
      expect(response.statusCode).toBe(200);
      let buffered = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        const parsed = parseFrames(buffered + chunk);
        received.push(...parsed.frames);
        buffered = parsed.rest;
      });
      await waitForSubscribers(1);
      await append(2);
      for (let i = 0; i < 3_000 && received.length < 2; i++) await sleep(10);
      expect(positionsOf(received)).toEqual([last + 1, last + 2]);
      request.destroy();
      await waitForSubscribers(0);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('sends heartbeat comments while idle', async () => {
    const actor: Actor = {
      principalId: randomUUID(),
      organizationId,
      projectId,
      kind: 'human',
      subject: 'test:heartbeat',
      scopes: ['run:read'],
      displayName: null,
      organizationRole: null,
      projectRole: null,
      apiKeyId: null,
    };
    // The route alone with a short heartbeat; auth is covered by the tests above.
    const app = new Hono<AppEnv>();
    app.onError(handleError);
    app.use(async (c, next) => {
      c.set('requestId', 'heartbeat-test');
      c.set('logger', t.deps.logger);
      c.set('actor', actor);
      c.set('routeProjectId', projectId);
      c.set('ctx', { ...serviceContext(), actor });
      await next();
    });
    app.route('/', eventRoutes(t.deps, { heartbeatMs: 20 }));
    const last = await lastPosition();
    const response = await app.request(`/projects/${projectId}/events`, { headers: { 'last-event-id': encodeEventCursor(projectId, BigInt(last)) } });
    const reader = response.body!.getReader();
    const { value } = await reader.read();
    expect(new TextDecoder().decode(value)).toBe(': heartbeat\n\n');
    await reader.cancel();
    await waitForSubscribers(0);
  });
});
