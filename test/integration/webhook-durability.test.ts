import { systemContext } from '../../services/kernel/service-context.ts';
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendProductEvents } from '../../services/kernel/events/index.ts';
import { newSigningSecret, startWebhookReceiver, verifyWithStandardWebhooks, type WebhookReceiver } from '../fixtures/webhook-receiver/receiver.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { killWorkerProcess, startWorkerProcess, waitFor } from '../support/worker-process.ts';

/**
 * Webhook delivery survives a worker killed with SIGKILL while a batch is in flight: the next
 * worker resends the same batch (same `webhook-id`, same body), the cursor advances once, and no
 * event is lost or delivered in a second batch.
 */

let t: TestApp;
let hooks: WebhookReceiver;
const taskQueue = `webhook-durability-${randomUUID()}`;
const workers: ChildProcess[] = [];
const env = { SVC_OUTBOUND_ALLOW_PRIVATE_NETWORK: 'true' };

beforeAll(async () => {
  t = await createTestApp({ env });
  hooks = await startWebhookReceiver();
}, 60_000);
afterAll(async () => {
  for (const worker of workers) await killWorkerProcess(worker);
  await hooks?.close();
  await t?.close();
});

async function startWorker() {
  const child = await startWorkerProcess({ databaseUrl: t.database.url!, taskQueue, dataDir: t.deps.settings.dataDir, env });
  workers.push(child);
  return child;
}

describe('webhook durability', () => {
  it('a worker killed mid-request: the next worker resends the same batch once', async (context) => {
    if (!t.database.url) context.skip();
    const { context: tenant } = await t.login();
    const key = (await t.createApiKey(['*'])).secret;
    const path = `/v1/projects/${tenant.project.id}/event-webhooks`;
    const signingSecret = newSigningSecret();
    hooks.answerNext({ hang: true });
    const first = await startWorker();
    const created = await t.request('POST', path, { apiKey: key, body: { displayName: 'Durable', endpointUrl: hooks.url, signingSecret } });
    const webhook = await created.json();
    const ctx = systemContext({ db: t.database.db, logger: t.deps.logger, clock: t.deps.clock });
    const events = await appendProductEvents(ctx, {
      organizationId: tenant.organization.id,
      projectId: tenant.project.id,
      events: Array.from({ length: 3 }, () => ({ aggregateType: 'test', aggregateId: randomUUID(), kind: 'test.durable', publicPayload: {} })),
    });

    await hooks.waitFor((requests) => requests.length === 1, 60_000);
    await killWorkerProcess(first);
    await startWorker();

    const state = await waitFor('the batch to be delivered by the second worker', async () => {
      const current = await (await t.request('GET', `${path}/${webhook.id}`, { apiKey: key })).json();
      return current.deliveredPosition === events.at(-1)!.projectPosition ? current : null;
    });
    expect(state).toMatchObject({ status: 'active', pendingEvents: 0 });
    expect(hooks.requests).toHaveLength(2);
    const [lost, resent] = hooks.requests;
    expect(resent!.headers['webhook-id']).toBe(lost!.headers['webhook-id']);
    expect(resent!.rawBody).toBe(lost!.rawBody);
    const payload = verifyWithStandardWebhooks(signingSecret, resent!) as any;
    expect(payload.data.events.map((event: any) => event.id)).toEqual(events.map((event) => event.id));
  }, 180_000);
});
