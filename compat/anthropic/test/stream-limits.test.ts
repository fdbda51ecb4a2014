import Anthropic, { RateLimitError } from '@anthropic-ai/sdk';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveApp, type ServedApp } from '../../../test/support/http-server.ts';
import { startRunApp } from '../../../test/support/run-app.ts';

/**
 * One pool of event streams per API process (issue 45): the bounds per key and per project
 * (SVC_EVENT_STREAMS_PER_*, docs/reliability.md) count the native project and session feeds and
 * the Anthropic-compatible session stream together. Past a bound each API refuses in its own
 * envelope: `429 rate_limited` natively, `429 rate_limit_error` to the official SDK.
 */
const PER_PRINCIPAL = 3;
const PER_PROJECT = 5;

let f: Awaited<ReturnType<typeof startRunApp>>;
let served: ServedApp;
let other: string;
let sessionId: string;

const sdk = (apiKey: string) => new Anthropic({ baseURL: `${served.baseUrl}/compat/anthropic`, apiKey, maxRetries: 0 });

beforeAll(async () => {
  f = await startRunApp({
    runtime: 'later',
    env: {
      SVC_EVENT_STREAMS_PER_PRINCIPAL: String(PER_PRINCIPAL),
      SVC_EVENT_STREAMS_PER_PROJECT: String(PER_PROJECT),
      SVC_RATE_LIMIT_API_KEY_PER_SECOND: '0',
      SVC_RATE_LIMIT_PROJECT_PER_SECOND: '0',
    },
  });
  served = await serveApp(f.t.app.fetch);
  other = (await f.t.createApiKey(['*'], 'other')).secret;
  const agent = await sdk(f.apiKey).beta.agents.create({ name: 'Streamed', model: 'fast' });
  sessionId = (await sdk(f.apiKey).beta.sessions.create({ agent: agent.id, environment_id: 'env_default' })).id;
}, 120_000);
afterAll(async () => {
  await served?.close();
  await f?.close();
});

type Open = { status: number; body: () => Promise<any>; headers: Headers; close(): void };
const held: Open[] = [];

/** A native feed over HTTP (the project's, or the session's), left open once its headers arrived. */
async function nativeFeed(apiKey: string, of: 'project' | 'session'): Promise<Open> {
  const controller = new AbortController();
  const path = of === 'project' ? `/v1/projects/${f.projectId}/events` : `/v1/projects/${f.projectId}/sessions/${sessionId}/events`;
  const response = await fetch(`${served.baseUrl}${path}`, {
    headers: { authorization: `Bearer ${apiKey}`, accept: 'text/event-stream' },
    signal: controller.signal,
  });
  const open = { status: response.status, body: () => response.json(), headers: response.headers, close: () => controller.abort() };
  if (response.status === 200) held.push(open);
  return open;
}

/** The compat session stream through the official SDK (it resolves on the headers). */
async function compatStream(apiKey: string): Promise<Open | RateLimitError> {
  try {
    const stream = await sdk(apiKey).beta.sessions.events.stream(sessionId);
    const open = { status: 200, body: async () => null, headers: new Headers(), close: () => stream.controller.abort() };
    held.push(open);
    return open;
  } catch (error) {
    if (error instanceof RateLimitError) return error;
    throw error;
  }
}

async function expectNativeRefused(open: Open, limit: string) {
  expect(open.status).toBe(429);
  expect(open.headers.get('retry-after')).toBe('5');
  expect((await open.body()).error).toMatchObject({ code: 'rate_limited', details: { limit }, message: expect.stringMatching(/event streams/) });
}

function expectCompatRefused(refused: Open | RateLimitError, limit: string) {
  expect(refused).toBeInstanceOf(RateLimitError);
  const error = refused as RateLimitError;
  expect(error.headers?.get('retry-after')).toBe('5');
  expect(error.error).toMatchObject({
    type: 'error',
    error: { type: 'rate_limit_error', message: expect.stringMatching(/event streams/), details: { limit } },
    request_id: error.requestID,
  });
}

async function untilSubscribers(expected: number) {
  for (let i = 0; i < 3_000 && f.t.deps.eventTail.stats().subscribers !== expected; i++) await sleep(10);
  expect(f.t.deps.eventTail.stats().subscribers).toBe(expected);
}

describe('one pool of event streams for the native and the Anthropic-compatible API', () => {
  it("a key's streams through both APIs share its bound, and a project's streams share the project's", async () => {
    expect((await nativeFeed(f.apiKey, 'project')).status).toBe(200);
    expect((await nativeFeed(f.apiKey, 'session')).status).toBe(200);
    expect(await compatStream(f.apiKey)).not.toBeInstanceOf(RateLimitError);
    await untilSubscribers(PER_PRINCIPAL);
    // The key holds its 3: a fourth of any kind is refused, each in its API's envelope.
    expectCompatRefused(await compatStream(f.apiKey), 'principal_event_streams');
    await expectNativeRefused(await nativeFeed(f.apiKey, 'session'), 'principal_event_streams');
    await expectNativeRefused(await nativeFeed(f.apiKey, 'project'), 'principal_event_streams');

    // Another key of the project: its own places, up to the project's 5 counted across both APIs.
    expect(await compatStream(other)).not.toBeInstanceOf(RateLimitError);
    expect((await nativeFeed(other, 'project')).status).toBe(200);
    await untilSubscribers(PER_PROJECT);
    expectCompatRefused(await compatStream(other), 'project_event_streams');
    await expectNativeRefused(await nativeFeed(other, 'session'), 'project_event_streams');

    // A compat stream that ends frees a place a native feed then takes.
    held[2]!.close();
    await untilSubscribers(PER_PROJECT - 1);
    expect((await nativeFeed(f.apiKey, 'project')).status).toBe(200);
    expectCompatRefused(await compatStream(f.apiKey), 'principal_event_streams');

    for (const open of held.splice(0)) open.close();
    await untilSubscribers(0);
  });
});
