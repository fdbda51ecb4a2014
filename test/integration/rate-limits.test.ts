import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runs, sessions } from '../../db/schema/index.ts';
import { createProvider } from '../fixtures/model-vendors/helpers.ts';
import { startFakeModelProviders, type FakeModelProviders } from '../fixtures/model-vendors/catalog-server.ts';
import { createTestApp, manualClock, type TestApp } from '../support/app.ts';
import { serveApp } from '../support/http-server.ts';

// Request limits per API key and per project, and the unsettled-runs quota
// (docs/decisions/request-rate-limits.md). The clock is the test's, so refills are exact.
let t: TestApp;
let fakes: FakeModelProviders;
let clock: ReturnType<typeof manualClock>;
let projectId: string;
let first: string;
let second: string;
let agentId: string;

beforeAll(async () => {
  fakes = await startFakeModelProviders();
  clock = manualClock(new Date());
  t = await createTestApp({
    clock,
    env: {
      ...fakes.env,
      SVC_RATE_LIMIT_API_KEY_PER_SECOND: '2',
      SVC_RATE_LIMIT_API_KEY_BURST: '4',
      SVC_RATE_LIMIT_PROJECT_PER_SECOND: '3',
      SVC_RATE_LIMIT_PROJECT_BURST: '6',
      SVC_PROJECT_UNSETTLED_RUNS_LIMIT: '2',
    },
  });
  const { context } = await t.login();
  projectId = context.project.id;
  first = (await t.createApiKey(['*'], 'first')).secret;
  second = (await t.createApiKey(['*'], 'second')).secret;
  // Set-up requests drew from the buckets: start the tests with full ones.
  clock.advance(10_000);
  const provider = await createProvider(t, { apiKey: first, projectId, key: 'openai', providerType: 'vendor_a' });
  expect(
    (
      await t.request('POST', `/v1/projects/${projectId}/model-presets`, {
        apiKey: first,
        body: { key: 'fast', displayName: 'Fast', providerId: provider.id, model: 'vendor_a/gpt-5.1', routing: {} },
      })
    ).status,
  ).toBe(201);
  const agent = await t.request('POST', `/v1/projects/${projectId}/agents`, {
    apiKey: first,
    body: { name: 'Quota', initialConfig: { systemPrompt: 'You are a careful assistant.', modelPreset: 'fast', limits: { maxTurns: 4 } } },
  });
  expect(agent.status).toBe(201);
  agentId = (await agent.json()).id;
});
afterAll(async () => {
  await t?.close();
  await fakes?.close();
});

const get = (apiKey: string) => t.request('GET', `/v1/projects/${projectId}/agents`, { apiKey });

describe('request limits', () => {
  it('refuses an API key past its burst with 429 rate_limited and Retry-After, then lets it through once refilled', async () => {
    clock.advance(10_000);
    for (let i = 0; i < 4; i++) expect((await get(first)).status).toBe(200);
    const refused = await get(first);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    const body = await refused.json();
    expect(body.error).toMatchObject({ code: 'rate_limited', details: { limit: 'api_key_requests' } });
    expect(body.error.requestId).toBe(refused.headers.get('x-request-id'));
    expect(body.error.message).toMatch(/this API key/);
    // Another key of the same project has its own bucket.
    expect((await get(second)).status).toBe(200);
    clock.advance(500);
    expect((await get(first)).status).toBe(200);
    expect((await get(first)).status).toBe(429);
  });

  it('shares one project bucket among the keys of a project', async () => {
    clock.advance(10_000);
    for (let i = 0; i < 3; i++) expect((await get(first)).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await get(second)).status).toBe(200);
    const refused = await get(second);
    expect(refused.status).toBe(429);
    expect((await refused.json()).error.details).toEqual({ limit: 'project_requests' });
    // A third of a second brings the project one token back.
    clock.advance(334);
    expect((await get(second)).status).toBe(200);
  });

  it('gives a browser session its own bucket, like a key, and counts it against its project too', async () => {
    clock.advance(10_000);
    const { cookie } = await t.login();
    const browse = () => t.request('GET', `/v1/projects/${projectId}/agents`, { cookie });
    for (let i = 0; i < 4; i++) expect((await browse()).status).toBe(200);
    const refused = await browse();
    expect(refused.status).toBe(429);
    expect((await refused.json()).error).toMatchObject({ code: 'rate_limited', details: { limit: 'principal_requests' } });
    // Another session of the same person shares the bucket; a key still has its own.
    expect((await t.request('GET', `/v1/projects/${projectId}/agents`, { cookie: (await t.login()).cookie })).status).toBe(429);
    expect((await get(first)).status).toBe(200);
    // The four session requests and the key's came from the project's six.
    expect((await get(second)).status).toBe(200);
    expect((await get(second)).status).toBe(429);
  });

  it("one project's refused requests do not starve its other callers (issue 28)", async () => {
    clock.advance(10_000);
    // Keys that may read agents but not sessions flood the sessions list with 403s.
    const flooders: string[] = [];
    for (const n of [1, 2, 3, 4]) {
      flooders.push((await t.createApiKey(['agent:read'], `flooder-${n}`)).secret);
      clock.advance(10_000); // the person's own bucket refills between set-up requests
    }
    // A key that may read sessions, but asks malformed questions (400).
    const clumsy = (await t.createApiKey(['session:read'], 'clumsy')).secret;
    clock.advance(10_000);
    const poller = (await t.createApiKey(['session:read'], 'poller')).secret;
    clock.advance(10_000);
    const sessionsList = (apiKey: string) => t.request('GET', `/v1/projects/${projectId}/sessions`, { apiKey });
    const polls: number[] = [];
    const flood: number[] = [];
    for (let round = 0; round < 4; round++) {
      for (const flooder of flooders) for (let i = 0; i < 2; i++) flood.push((await sessionsList(flooder)).status);
      // Malformed input is a refusal too.
      for (let i = 0; i < 2; i++) flood.push((await t.request('GET', `/v1/projects/${projectId}/sessions?limit=0`, { apiKey: clumsy })).status);
      polls.push((await sessionsList(poller)).status);
    }
    expect(polls).toEqual([200, 200, 200, 200]);
    // Each paid from its own bucket (four tokens) and was then limited there: 40 refusals in all,
    // ten times the project's burst, and the poller never noticed.
    expect(flood.filter((status) => status === 403)).toHaveLength(16);
    expect(flood.filter((status) => status === 400)).toHaveLength(4);
    expect(flood.filter((status) => status === 429)).toHaveLength(20);
  });

  it('writes nothing for a refused mutation, and the same Idempotency-Key succeeds later', async () => {
    clock.advance(10_000);
    for (let i = 0; i < 4; i++) expect((await get(first)).status).toBe(200);
    const before = await t.database.db.select().from(sessions);
    const refused = await t.request('POST', `/v1/projects/${projectId}/sessions`, {
      apiKey: first,
      idempotencyKey: 'limited-once',
      body: { agentId, initialMessage: 'Hello' },
    });
    expect(refused.status).toBe(429);
    expect(await t.database.db.select().from(sessions)).toHaveLength(before.length);
    clock.advance(1_000);
    const created = await t.request('POST', `/v1/projects/${projectId}/sessions`, {
      apiKey: first,
      idempotencyKey: 'limited-once',
      body: { agentId, initialMessage: 'Hello' },
    });
    expect(created.status).toBe(201);
    await settleAll();
  });
});

/** Settles every run directly, as the worker would, so quota tests start from zero. */
async function settleAll() {
  const now = clock.now();
  await t.database.db.update(runs).set({ state: 'completed', settledAt: now }).where(eq(runs.projectId, projectId));
  await t.database.db.update(sessions).set({ status: 'completed' }).where(eq(sessions.projectId, projectId));
}

describe('unsettled runs quota', () => {
  it('refuses a run past the project quota with 429, writing nothing, and accepts again once runs settle', async () => {
    clock.advance(10_000);
    await settleAll();
    const create = () => t.request('POST', `/v1/projects/${projectId}/sessions`, { apiKey: first, body: { agentId, initialMessage: 'Hello' } });
    expect((await create()).status).toBe(201);
    const second = await create();
    expect(second.status).toBe(201);
    const before = await t.database.db.select().from(sessions);
    clock.advance(10_000);
    const refused = await create();
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect((await refused.json()).error).toMatchObject({ code: 'rate_limited', details: { limit: 'project_unsettled_runs' } });
    expect(await t.database.db.select().from(sessions)).toHaveLength(before.length);
    // A follow-up on a settled session is a new run too, and is held to the same quota.
    const settledSession = (await second.json()).id;
    await t.database.db.update(runs).set({ state: 'completed', settledAt: clock.now() }).where(eq(runs.sessionId, settledSession));
    await t.database.db.update(sessions).set({ status: 'completed' }).where(eq(sessions.id, settledSession));
    clock.advance(10_000);
    expect((await create()).status).toBe(201);
    const followUp = await t.request('POST', `/v1/projects/${projectId}/sessions/${settledSession}/runs`, { apiKey: first, body: { message: 'And then?' } });
    expect(followUp.status).toBe(429);
  });
});

describe('a concurrent flood of refusals over HTTP (issue 28)', () => {
  it("leaves a project's poller answered while four keys without the scope flood its sessions list, with the default limits and the real clock", async () => {
    const app = await createTestApp();
    const served = await serveApp(app.app.fetch);
    try {
      const target = (await app.login()).context.project.id as string;
      const flooders: string[] = [];
      for (const n of [1, 2, 3, 4]) flooders.push((await app.createApiKey(['agent:read'], `flooder-${n}`)).secret);
      const poller = (await app.createApiKey(['session:read'], 'poller')).secret;
      const list = (apiKey: string) => fetch(`${served.baseUrl}/v1/projects/${target}/sessions`, { headers: { authorization: `Bearer ${apiKey}` } });
      let polling = true;
      const flood: number[] = [];
      // Four connections per flooder, each sending as fast as it is answered.
      const flooding = flooders.flatMap((flooder) =>
        Array.from({ length: 4 }, async () => {
          while (polling) {
            const response = await list(flooder);
            await response.arrayBuffer();
            flood.push(response.status);
          }
        }),
      );
      // The flood is real once it was refused by scope, then by the flooders' own buckets: the
      // poller polls until then (at least 42 times), however slowly a busy host floods.
      const floodWasReal = () => flood.filter((status) => status === 403).length >= 400 && flood.some((status) => status === 429);
      const polls: number[] = [];
      for (let i = 0; (i < 42 || !floodWasReal()) && i < 1_000; i++) {
        const response = await list(poller);
        await response.arrayBuffer();
        polls.push(response.status);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      polling = false;
      await Promise.all(flooding);
      expect(flood.filter((status) => status === 403).length).toBeGreaterThanOrEqual(400);
      expect(flood.filter((status) => status === 429).length).toBeGreaterThan(0);
      expect(flood.every((status) => status === 403 || status === 429)).toBe(true);
      expect(polls.filter((status) => status === 200).length, `polls: ${polls.join(' ')}`).toBeGreaterThanOrEqual(polls.length - 2);
    } finally {
      await served.close();
      await app.close();
    }
  });
});
