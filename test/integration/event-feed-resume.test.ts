import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeEventCursor, encodeEventCursor } from '../../domain/event-cursor.ts';
import { type ServiceContext, systemContext } from '../../services/kernel/service-context.ts';
import { appendProductEvent } from '../../services/kernel/events/index.ts';
import { createTestApp, type TestApp } from '../support/app.ts';

/**
 * The feed guarantee, end to end over real HTTP: while 5 writers commit 200 events each
 * concurrently, readers that start from random `Last-Event-ID`s and keep disconnecting and
 * resuming from their last frame see every later position exactly once, in increasing order.
 */
const WRITERS = 5;
const EVENTS_PER_WRITER = 200;
const TOTAL = WRITERS * EVENTS_PER_WRITER;
// Readers give up here, so a broken feed fails with a diff rather than a test timeout.
let deadline = Infinity;

let t: TestApp;
let server: ServerType;
let baseUrl: string;
let projectId: string;
let organizationId: string;
let readKey: string;

beforeAll(async () => {
  // Request limits off: dozens of readers reconnect as fast as they can (limits: rate-limits.test.ts).
  t = await createTestApp({ env: { SVC_RATE_LIMIT_API_KEY_PER_SECOND: '0', SVC_RATE_LIMIT_PROJECT_PER_SECOND: '0' } });
  const login = await t.login();
  projectId = login.context.project.id;
  organizationId = login.context.organization.id;
  readKey = (await t.createApiKey(['run:read'])).secret;
  server = await new Promise<ServerType>((resolve) => {
    const started = serve({ fetch: t.app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(started));
  });
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  (server as { closeAllConnections?: () => void }).closeAllConnections?.();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await t.close();
});

const ctx = (): ServiceContext => systemContext({ db: t.database.db, logger: t.deps.logger, clock: t.deps.clock });

async function writer(index: number) {
  const aggregateId = randomUUID();
  for (let i = 0; i < EVENTS_PER_WRITER; i++) {
    await appendProductEvent(ctx(), {
      organizationId,
      projectId,
      aggregateType: 'run',
      aggregateId,
      kind: 'run.progressed',
      publicPayload: { writer: index, i },
    });
  }
}

/** One connection: reads event frames until `stopAfter` arrived or `onFrame` says the reader is done. */
async function readConnection(lastEventId: string, stopAfter: number, onFrame: (id: string, data: string) => boolean): Promise<number> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), Math.max(0, deadline - Date.now()));
  const response = await fetch(`${baseUrl}/v1/projects/${projectId}/events`, {
    headers: { authorization: `Bearer ${readKey}`, accept: 'text/event-stream', 'last-event-id': lastEventId },
    signal: controller.signal,
  });
  expect(response.status).toBe(200);
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  let received = 0;
  try {
    while (received < stopAfter) {
      const { value, done } = await reader.read();
      if (done) break;
      buffered += decoder.decode(value, { stream: true });
      const blocks = buffered.split('\n\n');
      buffered = blocks.pop()!;
      for (const block of blocks) {
        const id = /^id: (.*)$/m.exec(block)?.[1];
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (!id || !data) continue; // heartbeat comments
        const caughtUp = onFrame(id, data);
        received += 1;
        if (caughtUp) return received;
        if (received >= stopAfter) break;
      }
    }
  } catch (error) {
    if (!controller.signal.aborted) throw error;
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
  return received;
}

/** A reader that starts at a random position and resumes from its last frame after each cut. */
async function resumingReader(start: number): Promise<number[]> {
  const positions: number[] = [];
  let lastEventId = encodeEventCursor(projectId, BigInt(start));
  for (let connection = 0; positions.at(-1) !== TOTAL && Date.now() < deadline; connection++) {
    await readConnection(lastEventId, 1 + Math.floor(Math.random() * 120), (id, data) => {
      const position = Number(decodeEventCursor(id, projectId));
      expect(JSON.parse(data).projectPosition).toBe(String(position));
      positions.push(position);
      lastEventId = id;
      return position === TOTAL;
    });
  }
  return positions;
}

/** A reader paging with `once=true` and random page sizes, resuming by Last-Event-ID. */
async function pagingReader(start: number): Promise<number[]> {
  const positions: number[] = [];
  let lastEventId = encodeEventCursor(projectId, BigInt(start));
  while (positions.at(-1) !== TOTAL && Date.now() < deadline) {
    const limit = 1 + Math.floor(Math.random() * 50);
    const response = await fetch(`${baseUrl}/v1/projects/${projectId}/events?once=true&limit=${limit}`, {
      headers: { authorization: `Bearer ${readKey}`, 'last-event-id': lastEventId },
    });
    expect(response.status).toBe(200);
    const ids = [...(await response.text()).matchAll(/^id: (.*)$/gm)].map((match) => match[1]!);
    expect(ids.length).toBeLessThanOrEqual(limit);
    for (const id of ids) positions.push(Number(decodeEventCursor(id, projectId)));
    if (ids.length > 0) lastEventId = ids.at(-1)!;
    else await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return positions;
}

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i + 1);

describe('event feed under concurrent writers', () => {
  it(`readers resuming from random Last-Event-IDs see every position once, in order, with no gap`, async () => {
    deadline = Date.now() + 60_000;
    const liveStarts = Array.from({ length: 6 }, () => Math.floor(Math.random() * 400));
    const pageStarts = Array.from({ length: 2 }, () => Math.floor(Math.random() * 400));
    const readers = [...liveStarts.map(resumingReader), ...pageStarts.map(pagingReader)];
    await Promise.all(Array.from({ length: WRITERS }, (_, index) => writer(index)));
    const results = await Promise.all(readers);
    const starts = [...liveStarts, ...pageStarts];
    results.forEach((positions, index) => {
      expect(positions).toEqual(range(starts[index]!, TOTAL));
    });
  }, 120_000);
});
