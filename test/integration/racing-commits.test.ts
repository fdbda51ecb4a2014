import { randomUUID } from 'node:crypto';
import { and, asc, eq, gt } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { productEvents } from '../../db/schema/product-events.ts';
import { encodeEventCursor } from '../../domain/event-cursor.ts';
import { appendProductEvent, appendProductEvents } from '../../services/kernel/events/index.ts';
import { type ServiceContext, systemContext } from '../../services/kernel/service-context.ts';
import { withTransaction } from '../../services/kernel/transaction.ts';
import { newSigningSecret, startWebhookReceiver, type WebhookReceiver } from '../fixtures/webhook-receiver/receiver.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { readFeed } from '../support/feed-reader.ts';
import { serveApp, type ServedApp } from '../support/http-server.ts';
import { deferredRunStarter, startTestRuntime } from '../support/runtime.ts';

/**
 * Issue 16 promise 4, ordering under racing commits: 16 writers commit transactions that are
 * slow before their append, slow between their append and their commit (holding the project's
 * position), or roll back after appending. An SSE reader and a webhook (the real delivery
 * workflow and an HTTP receiver) both follow the project meanwhile; each must see exactly the
 * committed events, each once, in gap-free position order — the same sequence.
 */
const WRITERS = 16;
const TRANSACTIONS_PER_WRITER = 12;

let t: TestApp;
let runtime: Awaited<ReturnType<typeof startTestRuntime>>;
let served: ServedApp;
let baseUrl: string;
let projectId: string;
let organizationId: string;
let admin: string;
let hooks: WebhookReceiver;

beforeAll(async () => {
  const starter = deferredRunStarter();
  t = await createTestApp({
    env: { SVC_OUTBOUND_ALLOW_PRIVATE_NETWORK: 'true', SVC_RATE_LIMIT_API_KEY_PER_SECOND: '0', SVC_RATE_LIMIT_PROJECT_PER_SECOND: '0' },
    runStarter: starter,
  });
  runtime = await startTestRuntime(t, starter);
  const { context } = await t.login();
  projectId = context.project.id;
  organizationId = context.organization.id;
  admin = (await t.createApiKey(['*'])).secret;
  hooks = await startWebhookReceiver();
  served = await serveApp(t.app.fetch);
  baseUrl = served.baseUrl;
}, 120_000);

afterAll(async () => {
  await served?.close();
  await runtime?.shutdown();
  await hooks?.close();
  await t?.close();
});

const ctx = (): ServiceContext => systemContext({ db: t.database.db, logger: t.deps.logger, clock: t.deps.clock });
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
class RolledBack extends Error {}

/**
 * One writer: transactions of one to three events. Each is slow before appending (its state
 * change taking time while others append), slow after appending (holding the project's next
 * position until its late commit), or rolled back after appending; returns the ids committed.
 */
async function writer(index: number, random: () => number): Promise<string[]> {
  const committed: string[] = [];
  const aggregateId = randomUUID();
  for (let transaction = 0; transaction < TRANSACTIONS_PER_WRITER; transaction++) {
    const count = 1 + Math.floor(random() * 3);
    const shape = random();
    try {
      const ids = await withTransaction(ctx(), async (tx) => {
        if (shape < 0.3) await pause(random() * 20);
        const drafts = Array.from({ length: count }, (_, i) => ({
          aggregateType: 'test',
          aggregateId,
          kind: 'test.raced',
          publicPayload: { writer: index, transaction, i },
        }));
        const events =
          count === 1
            ? [await appendProductEvent(tx, { organizationId, projectId, ...drafts[0]! })]
            : await appendProductEvents(tx, { organizationId, projectId, events: drafts });
        if (shape >= 0.3 && shape < 0.6) await pause(random() * 20);
        if (shape >= 0.8) throw new RolledBack();
        return events.map((event) => event.id);
      });
      committed.push(...ids);
    } catch (error) {
      if (!(error instanceof RolledBack)) throw error;
    }
  }
  return committed;
}

/** A small seeded generator, so a failure can be replayed with the printed seed. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let x = state;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

describe('ordering under racing commits (issue 16, promise 4)', () => {
  it('gives the SSE feed and webhook batches the same committed events, gap-free, in order, exactly once', async () => {
    const created = await t.request('POST', `/v1/projects/${projectId}/event-webhooks`, {
      apiKey: admin,
      body: { displayName: 'Racing receiver', endpointUrl: hooks.url, signingSecret: newSigningSecret() },
    });
    expect(created.status).toBe(201);
    const webhook = (await created.json()) as { id: string; deliveredPosition: string };
    const start = BigInt(webhook.deliveredPosition);
    const feed = readFeed({ baseUrl, projectId, apiKey: admin, lastEventId: encodeEventCursor(projectId, start), resume: true });

    const seed = Date.now();
    const random = seeded(seed);
    const results = await Promise.all(Array.from({ length: WRITERS }, (_, index) => writer(index, seeded(Math.floor(random() * 2 ** 32)))));
    const committed = new Set(results.flat());
    expect(committed.size, `seed ${seed}`).toBeGreaterThan(WRITERS * TRANSACTIONS_PER_WRITER * 0.5);

    const through = start + BigInt(committed.size);
    const deadline = Date.now() + 60_000;
    const deliveredIds = () =>
      hooks.requests
        .filter((request) => request.answeredStatus !== null && request.answeredStatus < 300)
        .flatMap((request) => request.body.data.events as Array<{ id: string; projectPosition: string }>);
    while ((feed.frames.length < committed.size || deliveredIds().length < committed.size) && Date.now() < deadline) await pause(100);
    await pause(300); // anything beyond the committed events would have arrived by now
    feed.stop();
    await feed.done;

    // The feed: every committed event once, no rolled-back one, positions start+1 .. through.
    expect(
      feed.frames.map((frame) => BigInt(frame.position)),
      `seed ${seed}`,
    ).toEqual(Array.from({ length: committed.size }, (_, i) => start + BigInt(i + 1)));
    const byPosition = await t.database.db
      .select({ id: productEvents.id, projectPosition: productEvents.projectPosition })
      .from(productEvents)
      .where(and(eq(productEvents.projectId, projectId), gt(productEvents.projectPosition, start)))
      .orderBy(asc(productEvents.projectPosition));
    expect(new Set(byPosition.map((row) => row.id))).toEqual(committed);
    expect(byPosition.at(-1)?.projectPosition).toBe(through);
    expect(feed.frames.map((frame) => frame.kind).every((kind) => kind === 'test.raced')).toBe(true);

    // The webhook: the same events in the same order, in batches that chain without overlap.
    const delivered = deliveredIds();
    expect(delivered.map((event) => BigInt(event.projectPosition))).toEqual(feed.frames.map((frame) => BigInt(frame.position)));
    expect(delivered.map((event) => event.id)).toEqual(byPosition.map((row) => row.id));
    let previous = start;
    for (const request of hooks.requests.filter((request) => request.answeredStatus === 204)) {
      expect(BigInt(request.body.data.fromPosition)).toBe(previous);
      previous = BigInt(request.body.data.throughPosition);
    }
    expect(previous).toBe(through);
  }, 120_000);
});
