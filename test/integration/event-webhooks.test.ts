import { systemContext } from '../../services/kernel/service-context.ts';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEntries, eventWebhooks } from '../../db/schema/index.ts';
import { decodeEventCursor } from '../../domain/event-cursor.ts';
import { appendProductEvents } from '../../services/kernel/events/index.ts';
import { newSigningSecret } from '../fixtures/webhook-receiver/receiver.ts';
import { createTestApp, type TestApp } from '../support/app.ts';

/**
 * The event webhook routes (spec 2 "Event webhooks") without a worker: validation, limits,
 * status fields, PATCH and rotation semantics as stored, and secrets that never come back.
 * Delivery itself is in webhook-delivery.test.ts.
 */

let t: TestApp;
let dev: TestApp;
let projectId: string;
let organizationId: string;
let admin: string;
const secret = newSigningSecret();
let responseTexts: string[] = [];

beforeAll(async () => {
  t = await createTestApp();
  const { context } = await t.login();
  projectId = context.project.id;
  organizationId = context.organization.id;
  admin = (await t.createApiKey(['*'])).secret;
  responseTexts = t.recordResponseTexts();
  dev = await createTestApp({ env: { SVC_OUTBOUND_ALLOW_PRIVATE_NETWORK: 'true' } });
});
afterAll(async () => {
  await t.close();
  await dev.close();
});

const base = () => `/v1/projects/${projectId}/event-webhooks`;
const call = async (method: string, path: string, body?: unknown, apiKey = admin) => {
  const response = await t.request(method, path, { apiKey, body });
  return { status: response.status, body: await response.json() };
};
const create = (body: Record<string, unknown>) =>
  call('POST', base(), { displayName: 'Receiver', endpointUrl: 'https://hooks.example.com/svc', signingSecret: secret, ...body });

async function appendEvents(count: number, kind = 'test.appended') {
  const ctx = systemContext({ db: t.database.db, logger: t.deps.logger, clock: t.deps.clock });
  await appendProductEvents(ctx, {
    organizationId,
    projectId,
    events: Array.from({ length: count }, () => ({ aggregateType: 'test', aggregateId: crypto.randomUUID(), kind, publicPayload: {} })),
  });
}

describe('event webhook routes', () => {
  it('creates a webhook with every status field and never shows the secret', async () => {
    await appendEvents(3);
    const created = await create({ eventKinds: ['run.*', 'message.created'], includeMessageContent: true });
    expect(created.status).toBe(201);
    const webhook = created.body;
    expect(webhook).toMatchObject({
      projectId,
      organizationId,
      displayName: 'Receiver',
      endpointUrl: 'https://hooks.example.com/svc',
      eventKinds: ['run.*', 'message.created'],
      includeMessageContent: true,
      enabled: true,
      status: 'active',
      disabledReason: null,
      credentialConfigured: true,
      credentialVersion: 1,
      pendingEvents: 0,
      consecutiveFailures: 0,
      nextAttemptAt: null,
      lastAttemptAt: null,
      lastSuccessAt: null,
      lastFailureAt: null,
      lastResponseStatus: null,
      lastErrorCode: null,
    });
    expect(webhook.credentialFingerprint).toMatch(/^[0-9a-f]{12}$/);
    // deliverFrom defaults to now: the cursor starts at the committed tail.
    expect(BigInt(webhook.deliveredPosition)).toBeGreaterThanOrEqual(3n);
    expect(decodeEventCursor(webhook.cursor, projectId)).toBe(BigInt(webhook.deliveredPosition));
    expect(JSON.stringify(webhook)).not.toContain(secret.slice(6));
  });

  it('lists webhooks with the server capabilities', async () => {
    const listed = await call('GET', base());
    expect(listed.status).toBe(200);
    expect(listed.body.credentialEncryptionConfigured).toBe(true);
    expect(listed.body.privateNetworkEndpointsAllowed).toBe(false);
    expect(listed.body.data.length).toBeGreaterThan(0);
    const devProject = (await dev.login()).context.project.id;
    const devKey = (await dev.createApiKey(['*'])).secret;
    const devList = await dev.request('GET', `/v1/projects/${devProject}/event-webhooks`, { apiKey: devKey });
    expect((await devList.json()).privateNetworkEndpointsAllowed).toBe(true);
  });

  it('counts pending events through the filter and replays history with deliverFrom beginning', async () => {
    await appendEvents(2, 'skill.disabled');
    const all = await create({ deliverFrom: 'beginning' });
    expect(all.body.deliveredPosition).toBe('0');
    const skillsOnly = await create({ deliverFrom: 'beginning', eventKinds: ['skill.*'] });
    const exact = await create({ deliverFrom: 'beginning', eventKinds: ['skill.disabled', 'test.appended'] });
    expect(all.body.pendingEvents).toBeGreaterThanOrEqual(5);
    expect(skillsOnly.body.pendingEvents).toBe(2);
    expect(exact.body.pendingEvents).toBe(all.body.pendingEvents);
    await appendEvents(1, 'skill.enabled');
    const got = await call('GET', `${base()}/${skillsOnly.body.id}`);
    expect(got.body.pendingEvents).toBe(3);
  });

  it('refuses every malformed body with a 400 naming the field, and writes nothing', async () => {
    const before = (await call('GET', base())).body.data.length;
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['http on a server without private networks', { endpointUrl: 'http://hooks.example.com/' }, 'endpointUrl'],
      ['a literal loopback address', { endpointUrl: 'https://127.0.0.1/hooks' }, 'endpointUrl'],
      ['a literal private address', { endpointUrl: 'https://10.1.2.3/hooks' }, 'endpointUrl'],
      ['a literal link-local address', { endpointUrl: 'https://169.254.169.254/latest' }, 'endpointUrl'],
      ['an IPv4-mapped loopback', { endpointUrl: 'https://[::ffff:127.0.0.1]/' }, 'endpointUrl'],
      ['an IPv6 unique-local address', { endpointUrl: 'https://[fd00::1]/' }, 'endpointUrl'],
      // `localhost` names are loopback (RFC 6761), in any case and with a trailing dot.
      ['the localhost name', { endpointUrl: 'https://localhost/hooks' }, 'endpointUrl'],
      ['LOCALHOST in capitals', { endpointUrl: 'https://LOCALHOST:8443/hooks' }, 'endpointUrl'],
      ['a name under localhost', { endpointUrl: 'https://foo.localhost/hooks' }, 'endpointUrl'],
      ['localhost with a trailing dot', { endpointUrl: 'https://localhost./hooks' }, 'endpointUrl'],
      ['a hex loopback address', { endpointUrl: 'https://0x7f000001/hooks' }, 'endpointUrl'],
      ['credentials in the URL', { endpointUrl: 'https://user:pass@hooks.example.com/' }, 'endpointUrl'],
      ['not a URL', { endpointUrl: 'hooks.example.com' }, 'endpointUrl'],
      ['another scheme', { endpointUrl: 'ftp://hooks.example.com/' }, 'endpointUrl'],
      ['a secret without the prefix', { signingSecret: secret.slice(6) }, 'signingSecret'],
      ['a secret of 16 bytes', { signingSecret: newSigningSecret(16) }, 'signingSecret'],
      ['a secret of 65 bytes', { signingSecret: newSigningSecret(65) }, 'signingSecret'],
      ['a secret that is not base64', { signingSecret: 'whsec_not*base64*at*all*but*long*enough*really' }, 'signingSecret'],
      ['an empty filter', { eventKinds: [] }, 'eventKinds'],
      ['a malformed kind', { eventKinds: ['Run Created'] }, 'eventKinds.0'],
      ['a bare wildcard', { eventKinds: ['*'] }, 'eventKinds.0'],
      ['a wildcard inside a kind', { eventKinds: ['run.*.x'] }, 'eventKinds.0'],
      ['101 filter entries', { eventKinds: Array.from({ length: 101 }, (_, i) => `kind.k${i}`) }, 'eventKinds'],
      ['an unknown deliverFrom', { deliverFrom: 'yesterday' }, 'deliverFrom'],
      ['an empty display name', { displayName: ' ' }, 'displayName'],
      ['an unknown field', { secret: 'x' }, 'secret'],
    ];
    for (const [label, body, path] of cases) {
      const response = await create(body);
      expect(response.status, label).toBe(400);
      expect(response.body.error.code, label).toBe('bad_request');
      expect(String(response.body.error.details?.path ?? ''), label).toContain(path);
    }
    expect((await call('GET', base())).body.data.length).toBe(before);
  });

  it('accepts http and private endpoints only on a server that allows them', async () => {
    const devProject = (await dev.login()).context.project.id;
    const devKey = (await dev.createApiKey(['*'])).secret;
    const response = await dev.request('POST', `/v1/projects/${devProject}/event-webhooks`, {
      apiKey: devKey,
      body: { displayName: 'Local', endpointUrl: 'http://127.0.0.1:9/hooks', signingSecret: secret },
    });
    expect(response.status).toBe(201);
    const named = await dev.request('POST', `/v1/projects/${devProject}/event-webhooks`, {
      apiKey: devKey,
      body: { displayName: 'Local name', endpointUrl: 'http://localhost:9/hooks', signingSecret: secret },
    });
    expect(named.status).toBe(201);
  });

  it('keeps a filter as a set and accepts exactly 100 entries', async () => {
    const kinds = Array.from({ length: 100 }, (_, i) => `kind.k${i}`);
    const response = await create({ eventKinds: kinds });
    expect(response.status).toBe(201);
    const deduped = await create({ eventKinds: ['run.*', 'run.*', 'message.created'] });
    expect(deduped.body.eventKinds).toEqual(['run.*', 'message.created']);
  });

  it('PATCH changes any subset; an endpoint change discards the pending batch, enabling keeps it', async () => {
    const webhook = (await create({})).body;
    const batchId = crypto.randomUUID();
    await t.database.db
      .update(eventWebhooks)
      .set({ pendingBatchId: batchId, pendingFromPosition: 0n, pendingThroughPosition: 1n, pendingBatchCreatedAt: new Date() })
      .where(eq(eventWebhooks.id, webhook.id));
    const row = async () => (await t.database.db.select().from(eventWebhooks).where(eq(eventWebhooks.id, webhook.id)))[0]!;

    const renamed = await call('PATCH', `${base()}/${webhook.id}`, { displayName: 'Renamed' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.displayName).toBe('Renamed');
    expect((await row()).pendingBatchId).toBe(batchId);
    expect((await row()).changeSequence).toBe(0);

    const disabled = await call('PATCH', `${base()}/${webhook.id}`, { enabled: false });
    expect(disabled.body).toMatchObject({ enabled: false, status: 'disabled', disabledReason: 'user' });
    expect((await row()).pendingBatchId).toBe(batchId);
    const enabled = await call('PATCH', `${base()}/${webhook.id}`, { enabled: true });
    expect(enabled.body).toMatchObject({ enabled: true, status: 'active', disabledReason: null });
    expect((await row()).pendingBatchId).toBe(batchId);

    const same = await call('PATCH', `${base()}/${webhook.id}`, { endpointUrl: webhook.endpointUrl, includeMessageContent: false });
    expect(same.status).toBe(200);
    expect((await row()).pendingBatchId).toBe(batchId);

    const moved = await call('PATCH', `${base()}/${webhook.id}`, { endpointUrl: 'https://other.example.com/in', eventKinds: ['run.*'] });
    expect(moved.body).toMatchObject({ endpointUrl: 'https://other.example.com/in', eventKinds: ['run.*'] });
    expect((await row()).pendingBatchId).toBeNull();
    expect((await row()).changeSequence).toBe(3);

    const all = await call('PATCH', `${base()}/${webhook.id}`, { eventKinds: null });
    expect(all.body.eventKinds).toBeNull();

    const bad = await call('PATCH', `${base()}/${webhook.id}`, { endpointUrl: 'https://192.168.1.1/' });
    expect(bad.status).toBe(400);
    expect((await call('PATCH', `${base()}/${webhook.id}`, { enabled: 'yes' })).status).toBe(400);
    expect((await call('PATCH', `${base()}/${crypto.randomUUID()}`, { enabled: false })).status).toBe(404);
  });

  it('rotates the secret with a grace period for the previous one', async () => {
    const webhook = (await create({})).body;
    const next = newSigningSecret();
    const rotated = await call('PUT', `${base()}/${webhook.id}/credential`, { signingSecret: next, previousCredentialTtlSeconds: 600 });
    expect(rotated.status).toBe(200);
    expect(rotated.body.credentialVersion).toBe(2);
    expect(rotated.body.credentialFingerprint).not.toBe(webhook.credentialFingerprint);
    const expiresIn = Date.parse(rotated.body.previousCredentialExpiresAt) - Date.parse(rotated.body.updatedAt);
    expect(expiresIn).toBe(600_000);
    const again = await call('PUT', `${base()}/${webhook.id}/credential`, { signingSecret: newSigningSecret(), previousCredentialTtlSeconds: 0 });
    expect(again.body.previousCredentialExpiresAt).toBeNull();
    const byDefault = await call('PUT', `${base()}/${webhook.id}/credential`, { signingSecret: newSigningSecret() });
    expect(Date.parse(byDefault.body.previousCredentialExpiresAt) - Date.parse(byDefault.body.updatedAt)).toBe(86_400_000);
    for (const ttl of [-1, 604_801, 1.5, '60']) {
      const response = await call('PUT', `${base()}/${webhook.id}/credential`, { signingSecret: newSigningSecret(), previousCredentialTtlSeconds: ttl });
      expect(response.status, String(ttl)).toBe(400);
    }
    expect((await call('PUT', `${base()}/${webhook.id}/credential`, { signingSecret: 'whsec_short' })).status).toBe(400);
  });

  it('deletes a webhook and answers 404 after', async () => {
    const webhook = (await create({})).body;
    const deleted = await call('DELETE', `${base()}/${webhook.id}`);
    expect(deleted).toEqual({ status: 200, body: { id: webhook.id, deleted: true } });
    expect((await call('DELETE', `${base()}/${webhook.id}`)).status).toBe(404);
    expect((await call('GET', `${base()}/${webhook.id}`)).status).toBe(404);
    expect((await call('GET', base())).body.data.map((w: any) => w.id)).not.toContain(webhook.id);
  });

  it('needs project:admin', async () => {
    const reader = (await t.createApiKey(['run:read', 'agent:read'])).secret;
    expect((await call('GET', base(), undefined, reader)).status).toBe(403);
    expect((await call('POST', base(), { displayName: 'x', endpointUrl: 'https://a.example.com', signingSecret: secret }, reader)).status).toBe(403);
  });

  it('allows at most 20 webhooks per project', async () => {
    const existing = (await call('GET', base())).body.data.length;
    for (let i = existing; i < 20; i++) expect((await create({})).status).toBe(201);
    const over = await create({});
    expect(over.status).toBe(409);
    expect(over.body.error.message).toContain('20');
    expect((await call('GET', base())).body.data.length).toBe(20);
  });

  it('audits only the endpoint origin and never the secret', async () => {
    const rows = await t.database.db
      .select()
      .from(auditEntries)
      .where(and(eq(auditEntries.projectId, projectId), eq(auditEntries.targetType, 'event_webhook')));
    expect(rows.length).toBeGreaterThan(10);
    const actions = new Set(rows.map((row) => row.action));
    for (const action of ['event_webhook.created', 'event_webhook.updated', 'event_webhook.credential_rotated', 'event_webhook.deleted'])
      expect(actions).toContain(action);
    for (const row of rows) {
      const text = JSON.stringify(row.details);
      expect(text).not.toContain('/svc');
      expect(text).not.toContain('whsec_');
      expect(row.details.endpointOrigin).toMatch(/^https?:\/\/[^/]+$/);
    }
    const everything = [...responseTexts, ...t.logLines].join('\n');
    expect(everything).not.toContain(secret.slice(6));
    expect(everything).not.toContain(secret);
  });
});
