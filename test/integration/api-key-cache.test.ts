import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKeys } from '../../db/schema/index.ts';
import { API_KEY_CACHE_MS } from '../../services/access/auth/index.ts';
import { createTestApp, manualClock, type TestApp } from '../support/app.ts';

/**
 * An API key authenticated in the last second is not read again (issue 33): a revocation made
 * through this process refuses the key at once; one made by another process (here: the row
 * updated directly, as another API process would commit it) refuses it within
 * API_KEY_CACHE_MS, and not before — which is how the test knows the cache is there at all.
 */
let t: TestApp;
let project: string;
const clock = manualClock(new Date());

beforeAll(async () => {
  t = await createTestApp({ clock });
  project = `/v1/projects/${(await t.login()).context.project.id}`;
}, 120_000);

afterAll(async () => {
  await t?.close();
});

const agentsWith = async (secret: string) => (await t.request('GET', `${project}/agents`, { apiKey: secret })).status;

describe('the API-key cache', () => {
  it('refuses a key revoked through this process at once', async () => {
    const admin = await t.createApiKey(['*'], 'admin');
    const key = await t.createApiKey(['agent:read'], 'revoked here');
    expect(await agentsWith(key.secret)).toBe(200);
    const revoked = await t.request('DELETE', `${project}/api-keys/${key.id}`, { apiKey: admin.secret });
    expect(revoked.status).toBe(200);
    expect(await agentsWith(key.secret)).toBe(401);
  });

  it('refuses a key revoked by another process within a second', async () => {
    const key = await t.createApiKey(['agent:read'], 'revoked elsewhere');
    expect(await agentsWith(key.secret)).toBe(200);
    await t.database.db.update(apiKeys).set({ revokedAt: clock.now() }).where(eq(apiKeys.id, key.id));
    // Authenticated a moment ago: taken on trust until the entry expires.
    clock.advance(API_KEY_CACHE_MS - 1);
    expect(await agentsWith(key.secret)).toBe(200);
    clock.advance(1);
    expect(await agentsWith(key.secret)).toBe(401);
  });

  it('refuses a key in a project deleted through this process at once', async () => {
    const admin = await t.createApiKey(['*'], 'admin 2');
    const created = await t.request('POST', '/v1/projects', { apiKey: admin.secret, body: { name: 'Doomed', slug: 'doomed' } });
    expect(created.status).toBe(201);
    const doomed = `/v1/projects/${(await created.json()).id}`;
    expect((await t.request('GET', `${doomed}/agents`, { apiKey: admin.secret })).status).toBe(200);
    expect((await t.request('DELETE', doomed, { apiKey: admin.secret })).status).toBe(200);
    const after = await t.request('GET', `${doomed}/agents`, { apiKey: admin.secret });
    expect(after.status).toBe(403);
  });
});
