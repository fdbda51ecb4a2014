import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projects } from '../../db/schema/index.ts';
import { createTestApp, manualClock, type TestApp } from '../support/app.ts';

const clock = manualClock(new Date());
let t: TestApp;
let key: string;

beforeAll(async () => {
  t = await createTestApp({ clock });
  clock.advance(1000); // projects created by the tests are later than the default project
  key = (await t.createApiKey(['*'])).secret;
});
afterAll(() => t.close());

const countSlug = async (slug: string) => (await t.database.db.select().from(projects).where(eq(projects.slug, slug))).length;

describe('Idempotency-Key', () => {
  it('replays the stored response with Idempotency-Replayed: true', async () => {
    const first = await t.request('POST', '/v1/projects', { apiKey: key, idempotencyKey: 'replay-1', body: { slug: 'replayed', name: 'R' } });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotency-replayed')).toBeNull();
    const created = await first.json();
    const again = await t.request('POST', '/v1/projects', { apiKey: key, idempotencyKey: 'replay-1', body: { name: 'R', slug: 'replayed' } });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expect(again.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    expect(await again.json()).toEqual(created);
    expect(await countSlug('replayed')).toBe(1);
  });

  it('the same key with a different body is idempotency_conflict and changes nothing', async () => {
    await t.request('POST', '/v1/projects', { apiKey: key, idempotencyKey: 'conflict-1', body: { slug: 'conflict-a', name: 'A' } });
    const response = await t.request('POST', '/v1/projects', { apiKey: key, idempotencyKey: 'conflict-1', body: { slug: 'conflict-b', name: 'B' } });
    expect(response.status).toBe(409);
    expect((await response.json()).error.code).toBe('idempotency_conflict');
    expect(await countSlug('conflict-b')).toBe(0);
  });

  it('is scoped to principal and route', async () => {
    const other = (await t.createApiKey(['*'], 'other')).secret;
    const a = await t.request('POST', '/v1/projects', { apiKey: key, idempotencyKey: 'scoped-1', body: { slug: 'scoped-a', name: 'A' } });
    const b = await t.request('POST', '/v1/projects', { apiKey: other, idempotencyKey: 'scoped-1', body: { slug: 'scoped-b', name: 'B' } });
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.headers.get('idempotency-replayed')).toBeNull();
    const projectId = (await a.json()).id;
    const c = await t.request('DELETE', `/v1/projects/${projectId}`, { apiKey: key, idempotencyKey: 'scoped-1' });
    expect(c.status).toBe(200);
    expect(await c.json()).toEqual({ id: projectId, deleted: true });
  });

  it('expires after 24 hours: the key then runs the request again', async () => {
    const first = await t.request('POST', '/v1/projects', { apiKey: key, idempotencyKey: 'expiry-1', body: { slug: 'expiring', name: 'E' } });
    expect(first.status).toBe(201);
    clock.advance(23 * 60 * 60 * 1000);
    const withinWindow = await t.request('POST', '/v1/projects', { apiKey: key, idempotencyKey: 'expiry-1', body: { slug: 'expiring', name: 'E' } });
    expect(withinWindow.headers.get('idempotency-replayed')).toBe('true');
    clock.advance(61 * 60 * 1000);
    const afterWindow = await t.request('POST', '/v1/projects', { apiKey: key, idempotencyKey: 'expiry-1', body: { slug: 'expiring', name: 'E' } });
    // Executed again: the slug now exists, so the fresh attempt is a real conflict.
    expect(afterWindow.headers.get('idempotency-replayed')).toBeNull();
    expect(afterWindow.status).toBe(409);
    expect((await afterWindow.json()).error.code).toBe('conflict');
    const freshBody = await t.request('POST', '/v1/projects', { apiKey: key, idempotencyKey: 'expiry-1', body: { slug: 'expiring-2', name: 'E2' } });
    expect(freshBody.status).toBe(201);
  });

  it('a rejected request stores nothing: the key can be reused with a corrected body', async () => {
    const bad = await t.request('POST', '/v1/projects', { apiKey: key, idempotencyKey: 'fix-1', body: { slug: 'BAD', name: 'x' } });
    expect(bad.status).toBe(400);
    const good = await t.request('POST', '/v1/projects', { apiKey: key, idempotencyKey: 'fix-1', body: { slug: 'fixed', name: 'x' } });
    expect(good.status).toBe(201);
  });

  it('20 parallel requests with one key create one project', async () => {
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => t.request('POST', '/v1/projects', { apiKey: key, idempotencyKey: 'parallel-1', body: { slug: 'parallel', name: 'P' } })),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(201));
    const ids = new Set(await Promise.all(responses.map(async (r) => (await r.json()).id)));
    expect(ids.size).toBe(1);
    expect(responses.filter((r) => r.headers.get('idempotency-replayed') === 'true')).toHaveLength(19);
    expect(await countSlug('parallel')).toBe(1);
  });

  it('20 parallel requests with one key create one row where nothing else would stop a second', async () => {
    // Unlike a slug, an API key's name may repeat: only the idempotency record keeps these to one.
    const { context } = await t.login();
    const path = `/v1/projects/${context.project.id}/api-keys`;
    const responses = await Promise.all(
      Array.from({ length: 20 }, () =>
        t.request('POST', path, { apiKey: key, idempotencyKey: 'parallel-2', body: { name: 'parallel key', scopes: ['agent:read'] } }),
      ),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(201));
    const bodies = await Promise.all(responses.map(async (r) => (await r.json()) as { id: string; secret: string }));
    expect(new Set(bodies.map((body) => body.id)).size).toBe(1);
    expect(responses.filter((r) => r.headers.get('idempotency-replayed') === 'true')).toHaveLength(19);
    const listed = await (await t.request('GET', path, { apiKey: key })).json();
    expect(listed.data.filter((item: { name: string }) => item.name === 'parallel key')).toHaveLength(1);
  });

  it('missing, empty and over-200-character keys are 400', async () => {
    for (const idempotencyKey of [null, '', 'k'.repeat(201)]) {
      const response = await t.request('POST', '/v1/projects', { apiKey: key, idempotencyKey, body: { slug: 'nokey', name: 'x' } });
      expect(response.status).toBe(400);
      expect((await response.json()).error.code).toBe('bad_request');
    }
    const exactly200 = await t.request('POST', '/v1/projects', { apiKey: key, idempotencyKey: 'k'.repeat(200), body: { slug: 'key-200', name: 'x' } });
    expect(exactly200.status).toBe(201);
    expect(await countSlug('nokey')).toBe(0);
  });
});
