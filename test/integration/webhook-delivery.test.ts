import { systemContext } from '../../services/kernel/service-context.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Settings } from '../../config/settings.ts';
import { decodeEventCursor } from '../../domain/event-cursor.ts';
import { createKeyring } from '../../services/kernel/credentials/index.ts';
import { appendProductEvents } from '../../services/kernel/events/index.ts';
import {
  newSigningSecret,
  startWebhookReceiver,
  verifyWithStandardWebhooks,
  type ReceivedRequest,
  type WebhookReceiver,
} from '../fixtures/webhook-receiver/receiver.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { deferredRunStarter, startTestRuntime } from '../support/runtime.ts';

/**
 * Webhook delivery end to end (spec 3 "Webhook delivery"): the real worker with its delivery
 * workflows on the Temporal dev server, a real HTTP receiver, and signatures checked with the
 * independent `standardwebhooks` package.
 */

let t: TestApp;
let runtime: Awaited<ReturnType<typeof startTestRuntime>>;
let projectId: string;
let organizationId: string;
let admin: string;
const receivers: WebhookReceiver[] = [];

beforeAll(async () => {
  const starter = deferredRunStarter();
  t = await createTestApp({ env: { SVC_OUTBOUND_ALLOW_PRIVATE_NETWORK: 'true' }, runStarter: starter });
  runtime = await startTestRuntime(t, starter);
  const { context } = await t.login();
  projectId = context.project.id;
  organizationId = context.organization.id;
  admin = (await t.createApiKey(['*'])).secret;
}, 120_000);

afterAll(async () => {
  await runtime?.shutdown();
  for (const receiver of receivers) await receiver.close();
  await t?.close();
});

const base = () => `/v1/projects/${projectId}/event-webhooks`;
async function call(method: string, path: string, body?: unknown) {
  const response = await t.request(method, path, { apiKey: admin, body });
  return { status: response.status, body: await response.json() };
}

async function receiver(): Promise<WebhookReceiver> {
  const started = await startWebhookReceiver();
  receivers.push(started);
  return started;
}

async function createWebhook(endpointUrl: string, body: Record<string, unknown> = {}) {
  const signingSecret = (body.signingSecret as string | undefined) ?? newSigningSecret();
  const created = await call('POST', base(), { displayName: 'Test receiver', endpointUrl, signingSecret, ...body });
  expect(created.status).toBe(201);
  return { webhook: created.body, signingSecret };
}

/** Commits `count` events of `kind` through the real event log; returns their positions. */
async function appendEvents(count: number, kind = 'test.appended'): Promise<string[]> {
  const ctx = systemContext({ db: t.database.db, logger: t.deps.logger, clock: t.deps.clock });
  const events = await appendProductEvents(ctx, {
    organizationId,
    projectId,
    events: Array.from({ length: count }, (_, index) => ({ aggregateType: 'test', aggregateId: crypto.randomUUID(), kind, publicPayload: { index } })),
  });
  return events.map((event) => event.projectPosition);
}

/** Polls a webhook (of any test app) until `predicate` holds. */
async function pollWebhook(app: TestApp, apiKey: string, url: string, predicate: (webhook: any) => boolean, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const webhook = await (await app.request('GET', url, { apiKey })).json();
    if (predicate(webhook)) return webhook;
    if (Date.now() > deadline) throw new Error(`webhook never reached the awaited state: ${JSON.stringify(webhook)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const waitForWebhook = (id: string, predicate: (webhook: any) => boolean, timeoutMs = 30_000) => pollWebhook(t, admin, `${base()}/${id}`, predicate, timeoutMs);

const eventIds = (requests: ReceivedRequest[]) => requests.flatMap((request) => request.body.data.events.map((event: any) => event.id as string));
const succeeded = (requests: ReceivedRequest[]) => requests.filter((request) => request.answeredStatus !== null && request.answeredStatus < 300);

describe('webhook delivery', () => {
  it('delivers every event once, in order, in signed batches of at most 100', async () => {
    const hooks = await receiver();
    const { webhook, signingSecret } = await createWebhook(hooks.url);
    const positions = await appendEvents(250);
    const tail = positions.at(-1)!;
    const delivered = await waitForWebhook(webhook.id, (w) => w.deliveredPosition === tail);
    expect(delivered).toMatchObject({ status: 'active', pendingEvents: 0, consecutiveFailures: 0, lastResponseStatus: 204, lastErrorCode: null });
    expect(delivered.lastSuccessAt).not.toBeNull();
    expect(decodeEventCursor(delivered.cursor, projectId)).toBe(BigInt(tail));

    const requests = hooks.requests;
    expect(requests.length).toBeGreaterThanOrEqual(3);
    let previousThrough = webhook.deliveredPosition;
    for (const request of requests) {
      expect(request.method).toBe('POST');
      expect(request.headers['content-type']).toBe('application/json');
      const payload = verifyWithStandardWebhooks(signingSecret, request) as any;
      expect(payload.type).toBe('oao.events');
      expect(Date.parse(payload.timestamp)).not.toBeNaN();
      const { data } = payload;
      expect(data).toMatchObject({ webhookId: webhook.id, organizationId, projectId, batchId: request.headers['webhook-id'] });
      expect(data.fromPosition).toBe(previousThrough);
      expect(data.events.length).toBeGreaterThan(0);
      expect(data.events.length).toBeLessThanOrEqual(100);
      expect(data.events.at(-1).projectPosition).toBe(data.throughPosition);
      expect(decodeEventCursor(data.cursor, projectId)).toBe(BigInt(data.throughPosition));
      // Standard Webhooks headers: one v1 signature, the timestamp of this attempt.
      expect(String(request.headers['webhook-signature'])).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      expect(Math.abs(Number(request.headers['webhook-timestamp']) - request.receivedAt / 1000)).toBeLessThan(5);
      previousThrough = data.throughPosition;
    }
    const ids = eventIds(requests);
    expect(ids.length).toBe(250);
    expect(new Set(ids).size).toBe(250);
    const deliveredPositions = requests.flatMap((request) => request.body.data.events.map((event: any) => event.projectPosition));
    expect(deliveredPositions).toEqual(positions);
    // No message content unless asked for; events carry the public shape only.
    expect(requests[0]!.body.data.events[0]).not.toHaveProperty('message');
    await call('DELETE', `${base()}/${webhook.id}`);
  });

  it('retries a failed batch under the same webhook-id until the receiver is back', async () => {
    const hooks = await receiver();
    hooks.answerNext({ status: 500 }, { status: 503 });
    const { webhook } = await createWebhook(hooks.url);
    await appendEvents(5);
    const failing = await waitForWebhook(webhook.id, (w) => w.consecutiveFailures >= 1);
    expect(failing).toMatchObject({ status: 'failing', lastErrorCode: 'http_status', lastResponseStatus: 500, pendingEvents: 5 });
    expect(Date.parse(failing.nextAttemptAt) - Date.parse(failing.lastFailureAt)).toBe(2_000);
    const recovered = await waitForWebhook(webhook.id, (w) => w.lastSuccessAt !== null, 30_000);
    expect(recovered).toMatchObject({ status: 'active', consecutiveFailures: 0, pendingEvents: 0, nextAttemptAt: null });
    // 500, 503 (after 2 s), then 204 (after 4 s more): one batch, the same id and events each time.
    expect(hooks.requests.map((request) => request.answeredStatus)).toEqual([500, 503, 204]);
    expect(new Set(hooks.requests.map((request) => request.headers['webhook-id'])).size).toBe(1);
    expect(new Set(hooks.requests.map((request) => request.rawBody)).size).toBe(1);
    expect(new Set(hooks.requests.map((request) => request.headers['webhook-timestamp'])).size).toBe(3);
    expect(hooks.requests[2]!.receivedAt - hooks.requests[1]!.receivedAt).toBeGreaterThanOrEqual(3_900);
    expect(eventIds(succeeded(hooks.requests))).toHaveLength(5);
    await call('DELETE', `${base()}/${webhook.id}`);
  });

  it('honours Retry-After within the back-off range', async () => {
    const hooks = await receiver();
    hooks.answerNext({ status: 429, headers: { 'retry-after': '5' } });
    const { webhook } = await createWebhook(hooks.url);
    await appendEvents(1);
    const failing = await waitForWebhook(webhook.id, (w) => w.consecutiveFailures === 1);
    expect(Date.parse(failing.nextAttemptAt) - Date.parse(failing.lastFailureAt)).toBe(5_000);
    await hooks.waitFor((requests) => requests.length === 2, 20_000);
    expect(hooks.requests[1]!.receivedAt - hooks.requests[0]!.receivedAt).toBeGreaterThanOrEqual(4_900);
    await call('DELETE', `${base()}/${webhook.id}`);
  });

  it('a closed port fails with connection_failed; pointing the webhook elsewhere resumes at once', async () => {
    const gone = await startWebhookReceiver();
    const deadUrl = gone.url;
    await gone.close();
    const { webhook } = await createWebhook(deadUrl);
    await appendEvents(3);
    const failing = await waitForWebhook(webhook.id, (w) => w.lastErrorCode === 'connection_failed');
    expect(failing).toMatchObject({ status: 'failing', lastResponseStatus: null });
    // Three failures in: the next attempt is 8 s away, so an answer before it is the change's.
    const backingOff = await waitForWebhook(webhook.id, (w) => w.consecutiveFailures >= 3);
    const hooks = await receiver();
    await call('PATCH', `${base()}/${webhook.id}`, { endpointUrl: hooks.url });
    await waitForWebhook(webhook.id, (w) => w.pendingEvents === 0 && w.status === 'active');
    // Not after the back-off: the change woke the workflow.
    expect(hooks.requests[0]!.receivedAt).toBeLessThan(Date.parse(backingOff.nextAttemptAt));
    expect(eventIds(hooks.requests)).toHaveLength(3);
    await call('DELETE', `${base()}/${webhook.id}`);
  });

  it('410 disables the webhook with the cursor kept; re-enabling resends the batch under the same webhook-id', async () => {
    const hooks = await receiver();
    hooks.answerNext({ status: 410 });
    const { webhook } = await createWebhook(hooks.url);
    await appendEvents(4);
    const disabled = await waitForWebhook(webhook.id, (w) => w.status === 'disabled');
    expect(disabled).toMatchObject({
      enabled: false,
      disabledReason: 'endpoint_gone',
      lastErrorCode: 'endpoint_gone',
      lastResponseStatus: 410,
      pendingEvents: 4,
    });
    expect(disabled.deliveredPosition).toBe(webhook.deliveredPosition);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(hooks.requests).toHaveLength(1);

    const enabled = await call('PATCH', `${base()}/${webhook.id}`, { enabled: true });
    expect(enabled.body).toMatchObject({ enabled: true, status: 'active', disabledReason: null });
    await waitForWebhook(webhook.id, (w) => w.pendingEvents === 0);
    expect(hooks.requests).toHaveLength(2);
    expect(hooks.requests[1]!.headers['webhook-id']).toBe(hooks.requests[0]!.headers['webhook-id']);
    expect(hooks.requests[1]!.rawBody).toBe(hooks.requests[0]!.rawBody);
    await call('DELETE', `${base()}/${webhook.id}`);
  });

  it('signs with both secrets during a rotation, then with the new one only', async () => {
    const hooks = await receiver();
    const { webhook, signingSecret: first } = await createWebhook(hooks.url);
    await appendEvents(1);
    await hooks.waitFor((requests) => requests.length === 1);
    expect(String(hooks.requests[0]!.headers['webhook-signature']).split(' ')).toHaveLength(1);

    const second = newSigningSecret(48);
    const rotated = await call('PUT', `${base()}/${webhook.id}/credential`, { signingSecret: second, previousCredentialTtlSeconds: 3 });
    expect(rotated.status).toBe(200);
    await appendEvents(1);
    await hooks.waitFor((requests) => requests.length === 2);
    const during = hooks.requests[1]!;
    expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verifyWithStandardWebhooks(first, during)).toBeTruthy();
    expect(verifyWithStandardWebhooks(second, during)).toBeTruthy();

    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(rotated.body.previousCredentialExpiresAt) - Date.now() + 200)));
    await appendEvents(1);
    await hooks.waitFor((requests) => requests.length === 3);
    const after = hooks.requests[2]!;
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(verifyWithStandardWebhooks(second, after)).toBeTruthy();
    expect(() => verifyWithStandardWebhooks(first, after)).toThrow();
    await call('DELETE', `${base()}/${webhook.id}`);
  });

  it('filters by exact kinds and family wildcards; filtered events advance the cursor without requests', async () => {
    const hooks = await receiver();
    const { webhook } = await createWebhook(hooks.url, { eventKinds: ['skill.*', 'test.exact'] });
    // Filtered events alone move the cursor without a request. (Waited for, so the first request's
    // start is known: whether the dispatcher plans between two commits is the host's timing.)
    const filteredFirst = (await appendEvents(5, 'test.other')).at(-1)!;
    await waitForWebhook(webhook.id, (w) => w.deliveredPosition === filteredFirst);
    expect(hooks.requests).toHaveLength(0);
    await appendEvents(2, 'skill.disabled');
    await appendEvents(1, 'test.exact');
    await appendEvents(1, 'skill.version.revoked');
    const tail = (await appendEvents(6, 'test.other')).at(-1)!;
    const done = await waitForWebhook(webhook.id, (w) => w.deliveredPosition === tail);
    expect(done.pendingEvents).toBe(0);
    const kinds = hooks.requests.flatMap((request) => request.body.data.events.map((event: any) => event.kind));
    expect(kinds).toEqual(['skill.disabled', 'skill.disabled', 'test.exact', 'skill.version.revoked']);
    // Positions cover the filtered events: ranges are contiguous from the cursor on.
    expect(hooks.requests[0]!.body.data.fromPosition).toBe(filteredFirst);
    for (let i = 1; i < hooks.requests.length; i++) {
      expect(hooks.requests[i]!.body.data.fromPosition).toBe(hooks.requests[i - 1]!.body.data.throughPosition);
    }
    // Only filtered events after that: the cursor moves with no request at all.
    const before = hooks.requests.length;
    const filteredTail = (await appendEvents(3, 'test.other')).at(-1)!;
    await waitForWebhook(webhook.id, (w) => w.deliveredPosition === filteredTail);
    expect(hooks.requests.length).toBe(before);
    await call('DELETE', `${base()}/${webhook.id}`);
  });

  it('deliverFrom beginning replays history; now starts at the tail', async () => {
    const history = await appendEvents(3, 'test.history');
    const replay = await receiver();
    const fresh = await receiver();
    const { webhook: replaying } = await createWebhook(replay.url, { deliverFrom: 'beginning', eventKinds: ['test.history'] });
    const { webhook: current } = await createWebhook(fresh.url, { deliverFrom: 'now', eventKinds: ['test.history'] });
    const later = await appendEvents(1, 'test.history');
    await waitForWebhook(replaying.id, (w) => w.deliveredPosition === later[0]);
    await waitForWebhook(current.id, (w) => w.deliveredPosition === later[0]);
    const replayed = replay.requests.flatMap((request) => request.body.data.events.map((event: any) => event.projectPosition));
    expect(replayed).toEqual([...history, ...later]);
    expect(replay.requests[0]!.body.data.fromPosition).toBe('0');
    const freshPositions = fresh.requests.flatMap((request) => request.body.data.events.map((event: any) => event.projectPosition));
    expect(freshPositions).toEqual(later);
    await call('DELETE', `${base()}/${replaying.id}`);
    await call('DELETE', `${base()}/${current.id}`);
  });

  it('a change while a request is in flight is not recorded; the events go out again', async () => {
    const hooks = await receiver();
    hooks.answerNext({ hang: true });
    const { webhook } = await createWebhook(hooks.url);
    const positions = await appendEvents(2);
    await hooks.waitFor((requests) => requests.length === 1);
    await call('PATCH', `${base()}/${webhook.id}`, { includeMessageContent: true });
    hooks.release(200);
    await hooks.waitFor((requests) => requests.length === 2, 20_000);
    const done = await waitForWebhook(webhook.id, (w) => w.deliveredPosition === positions.at(-1));
    expect(done.pendingEvents).toBe(0);
    expect(hooks.requests[1]!.headers['webhook-id']).not.toBe(hooks.requests[0]!.headers['webhook-id']);
    expect(eventIds([hooks.requests[1]!])).toEqual(eventIds([hooks.requests[0]!]));
    await call('DELETE', `${base()}/${webhook.id}`);
  });

  it('a deleted webhook stops delivering', async () => {
    const hooks = await receiver();
    hooks.setDefaultAnswer({ status: 500 });
    const { webhook } = await createWebhook(hooks.url);
    await appendEvents(1);
    await hooks.waitFor((requests) => requests.length === 1);
    await call('DELETE', `${base()}/${webhook.id}`);
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(hooks.requests).toHaveLength(1);
  });
});

describe('webhook delivery with production rules', () => {
  let prod: TestApp;
  let prodRuntime: Awaited<ReturnType<typeof startTestRuntime>>;

  beforeAll(async () => {
    const starter = deferredRunStarter();
    prod = await createTestApp({ runStarter: starter });
    // A production worker: parseSettings refuses SVC_OUTBOUND_ALLOW_PRIVATE_NETWORK there
    // (config/settings.test.ts), so its webhook rules are the private-network-refusing ones.
    const settings: Settings = { ...prod.deps.settings, environment: 'production', outboundAllowPrivateNetwork: false };
    expect(settings.outboundAllowPrivateNetwork).toBe(false);
    // A name that resolves to loopback only when delivered (DNS rebinding), by the worker's DNS seam.
    const webhookLookup = async (hostname: string) => (hostname === 'rebound.test' ? [{ address: '127.0.0.1', family: 4 as const }] : []);
    prodRuntime = await startTestRuntime(prod, starter, { settings, webhookLookup });
  }, 120_000);
  afterAll(async () => {
    await prodRuntime?.shutdown();
    await prod?.close();
  });

  it('refuses a host name that resolves to 127.0.0.1 at delivery, without connecting', async () => {
    const hooks = await receiver();
    const { context } = await prod.login();
    const key = (await prod.createApiKey(['*'])).secret;
    const path = `/v1/projects/${context.project.id}/event-webhooks`;
    const literal = await prod.request('POST', path, {
      apiKey: key,
      body: { displayName: 'x', endpointUrl: `https://127.0.0.1:${hooks.port}/hooks`, signingSecret: newSigningSecret() },
    });
    expect(literal.status).toBe(400);
    // `localhost` names are loopback by definition: refused when saved, like the literal (issue 28).
    const named = await prod.request('POST', path, {
      apiKey: key,
      body: { displayName: 'x', endpointUrl: `https://localhost:${hooks.port}/hooks`, signingSecret: newSigningSecret() },
    });
    expect(named.status).toBe(400);
    const created = await prod.request('POST', path, {
      apiKey: key,
      body: { displayName: 'x', endpointUrl: `https://rebound.test:${hooks.port}/hooks`, signingSecret: newSigningSecret() },
    });
    expect(created.status).toBe(201);
    const webhook = await created.json();
    const ctx = systemContext({ db: prod.database.db, logger: prod.deps.logger, clock: prod.deps.clock });
    await appendProductEvents(ctx, {
      organizationId: context.organization.id,
      projectId: context.project.id,
      events: [{ aggregateType: 'test', aggregateId: crypto.randomUUID(), kind: 'test.blocked', publicPayload: {} }],
    });
    const state = await pollWebhook(prod, key, `${path}/${webhook.id}`, (w) => w.lastErrorCode !== null);
    expect(state).toMatchObject({ status: 'failing', lastErrorCode: 'destination_blocked', lastResponseStatus: null, pendingEvents: 1 });
    expect(hooks.requests).toHaveLength(0);
  });
});

/**
 * A test app and worker of their own (settings the shared ones lack), with a webhook to a fresh
 * receiver in the app's project and `append`, which commits one event of `kind` and returns its
 * position; both are stopped after `fn`.
 */
async function withOwnWorker(
  env: Record<string, string>,
  runtimeOptions: Parameters<typeof startTestRuntime>[2],
  fn: (own: { app: TestApp; key: string; webhookUrl: string; hooks: WebhookReceiver; append: (kind: string) => Promise<string> }) => Promise<void>,
) {
  const starter = deferredRunStarter();
  const app = await createTestApp({ env: { SVC_OUTBOUND_ALLOW_PRIVATE_NETWORK: 'true', ...env }, runStarter: starter });
  const worker = await startTestRuntime(app, starter, runtimeOptions);
  try {
    const hooks = await receiver();
    const { context } = await app.login();
    const key = (await app.createApiKey(['*'])).secret;
    const path = `/v1/projects/${context.project.id}/event-webhooks`;
    const webhook = await (
      await app.request('POST', path, { apiKey: key, body: { displayName: 'x', endpointUrl: hooks.url, signingSecret: newSigningSecret() } })
    ).json();
    const ctx = systemContext({ db: app.database.db, logger: app.deps.logger, clock: app.deps.clock });
    const append = async (kind: string) => {
      const [event] = await appendProductEvents(ctx, {
        organizationId: context.organization.id,
        projectId: context.project.id,
        events: [{ aggregateType: 'test', aggregateId: crypto.randomUUID(), kind, publicPayload: {} }],
      });
      return event!.projectPosition;
    };
    await fn({ app, key, webhookUrl: `${path}/${webhook.id}`, hooks, append });
  } finally {
    await worker.shutdown();
    await app.close();
  }
}

describe('webhook delivery gathering a burst', () => {
  it('events committed one by one in quick succession share requests, each delivered once and in order', async () => {
    // The gather is the setting's (SVC_WEBHOOK_BATCH_GATHER_MS, 10 ms by default), long here so
    // that the bound below holds on a machine of any speed.
    await withOwnWorker({ SVC_WEBHOOK_BATCH_GATHER_MS: '200' }, {}, async ({ app, key, webhookUrl, hooks, append }) => {
      // The delivery activity is caught up and lingering when the burst begins.
      const first = await append('test.burst');
      await pollWebhook(app, key, webhookUrl, (w) => w.deliveredPosition === first);
      const before = hooks.requests.length;
      // 60 transactions of one event each, one after another: commits a few milliseconds apart.
      const positions: string[] = [];
      const began = Date.now();
      for (let i = 0; i < 60; i++) positions.push(await append('test.burst'));
      await pollWebhook(app, key, webhookUrl, (w) => w.deliveredPosition === positions.at(-1));
      const burst = hooks.requests.slice(before);
      const ids = eventIds(burst);
      expect(ids.length).toBe(60);
      expect(new Set(ids).size).toBe(60);
      expect(burst.flatMap((request) => request.body.data.events.map((event: any) => event.projectPosition))).toEqual(positions);
      // Without gathering, a request and its record take a few milliseconds, so each request would
      // carry one or two of these events. A batch that was not full is recorded, and the next
      // planned, no sooner than the gather after its request began: however slow the machine, the
      // burst takes at most one request per gather of its length, plus the first and the last.
      const lengthMs = burst.at(-1)!.receivedAt - began;
      expect(burst.length).toBeLessThanOrEqual(Math.floor(lengthMs / 200) + 2);
    });
  }, 120_000);
});

describe('webhook delivery without the signing key', () => {
  it('fails with signing_key_unavailable when the worker has another credential key', async () => {
    await withOwnWorker({}, { keyring: createKeyring(Buffer.alloc(32, 9)) }, async ({ app, key, webhookUrl, hooks, append }) => {
      await append('test.unsigned');
      const state = await pollWebhook(app, key, webhookUrl, (w) => w.lastErrorCode !== null);
      expect(state).toMatchObject({ status: 'failing', lastErrorCode: 'signing_key_unavailable', lastResponseStatus: null });
      expect(hooks.requests).toHaveLength(0);
    });
  }, 120_000);
});
