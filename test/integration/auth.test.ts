import { eq } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { apiKeys, idempotencyRecords, organizations, principals, projects } from '../../db/schema/index.ts';
import { createApiKey } from '../../services/access/api-keys/index.ts';
import { revokeApiKey } from '../../services/access/api-keys/index.ts';
import { authenticateApiKey } from '../../services/access/auth/index.ts';
import { systemContext, type ServiceContext } from '../../services/kernel/service-context.ts';
import { createTestApp, TEST_ORIGIN, type TestApp, type TestResponse } from '../support/app.ts';

let t: TestApp;
let projectId: string;
let cookie: string;

beforeAll(async () => {
  t = await createTestApp();
  const login = await t.login();
  cookie = login.cookie;
  projectId = login.context.project.id;
});
afterAll(() => t.close());

const errorOf = async (response: TestResponse) => (await response.json()).error as { code: string; message: string };

describe('development login', () => {
  it('needs the allowed Origin', async () => {
    const missing = await t.request('POST', '/v1/auth/development/login', { origin: null });
    expect(missing.status).toBe(403);
    expect((await errorOf(missing)).message).toBe('Request origin is not allowed');
    const wrong = await t.request('POST', '/v1/auth/development/login', { origin: 'http://evil.example' });
    expect(wrong.status).toBe(403);
  });

  it('sets an HTTP-only cookie for the development owner with *', async () => {
    const response = await t.request('POST', '/v1/auth/development/login', { origin: TEST_ORIGIN });
    const setCookie = response.headers.get('set-cookie')!;
    expect(setCookie).toMatch(/^svc_session=/);
    expect(setCookie).toMatch(/HttpOnly/i);
    const context = await (await t.request('GET', '/v1/context', { cookie: setCookie.split(';')[0] })).json();
    expect(context.principal).toMatchObject({ kind: 'human', scopes: ['*'], organizationRole: 'owner', projectRole: 'owner' });
    expect(context.authProvider).toBe('development');
  });

  it('GET /auth/provider reports the mode without authentication', async () => {
    const response = await t.request('GET', '/v1/auth/provider');
    expect(response.status).toBe(200);
    // Spec 3: development mode has no logout button.
    expect(await response.json()).toEqual({ mode: 'development', loginPath: '/v1/auth/development/login', logoutSupported: false });
  });

  it('cookie mutations need the exact allowed Origin', async () => {
    const noOrigin = await t.request('POST', '/v1/projects', { cookie, origin: null, body: { slug: 'cookie-a', name: 'A' } });
    expect(noOrigin.status).toBe(403);
    expect((await errorOf(noOrigin)).message).toBe('Request origin is not allowed');
    const otherOrigin = await t.request('POST', '/v1/projects', { cookie, origin: 'http://localhost:8081', body: { slug: 'cookie-a', name: 'A' } });
    expect(otherOrigin.status).toBe(403);
    const ok = await t.request('POST', '/v1/projects', { cookie, origin: TEST_ORIGIN, body: { slug: 'cookie-a', name: 'A' } });
    expect(ok.status).toBe(201);
    const read = await t.request('GET', '/v1/context', { cookie, origin: null });
    expect(read.status).toBe(200);
  });

  it('logout ends the cookie session', async () => {
    const { cookie: own } = await t.login();
    expect((await t.request('GET', '/v1/context', { cookie: own })).status).toBe(200);
    const logout = await t.request('POST', '/v1/auth/logout', { cookie: own });
    expect(logout.status).toBe(200);
    expect(logout.headers.get('set-cookie')).toMatch(/svc_session=;/);
    expect((await t.request('GET', '/v1/context', { cookie: own })).status).toBe(401);
    expect((await t.request('GET', '/v1/context', { cookie })).status).toBe(200);
  });

  it('a human session may only address its own project in project paths', async () => {
    const other = await (await t.request('POST', '/v1/projects', { cookie, body: { slug: 'cookie-b', name: 'B' } })).json();
    const response = await t.request('GET', `/v1/projects/${other.id}/members`, { cookie });
    expect(response.status).toBe(403);
    const switched = await t.request('POST', '/v1/auth/switch-project', { cookie, body: { projectId: other.id } });
    expect(switched.status).toBe(200);
    expect((await switched.json()).project.id).toBe(other.id);
    expect((await t.request('GET', `/v1/projects/${other.id}/members`, { cookie })).status).toBe(200);
    await t.request('POST', '/v1/auth/switch-project', { cookie, body: { projectId } });
  });
});

describe('API keys', () => {
  it('missing or bad key is 401', async () => {
    for (const headers of [
      {} as Record<string, string>,
      { authorization: 'Bearer svc_not-a-key' },
      { authorization: 'Basic abc' },
      { authorization: 'Bearer' },
    ]) {
      const response = await t.request('GET', '/v1/context', { headers });
      expect(response.status).toBe(401);
      expect((await errorOf(response)).code).toBe('unauthenticated');
    }
  });

  it('is shown once, stored as a keyed hash, and a replay omits the secret', async () => {
    const body = { name: 'ci', scopes: ['agent:read', 'run:read'] };
    const first = await t.request('POST', `/v1/projects/${projectId}/api-keys`, { cookie, idempotencyKey: 'key-once', body });
    expect(first.status).toBe(201);
    const created = await first.json();
    expect(created.shown).toBe(true);
    expect(created.secret).toMatch(/^svc_[A-Za-z0-9_-]{40,}$/);
    const replay = await t.request('POST', `/v1/projects/${projectId}/api-keys`, { cookie, idempotencyKey: 'key-once', body });
    expect(replay.headers.get('idempotency-replayed')).toBe('true');
    const replayed = await replay.json();
    expect(replayed.shown).toBe(false);
    expect(replayed).not.toHaveProperty('secret');
    expect(replayed.id).toBe(created.id);
    const [row] = await t.database.db.select().from(apiKeys).where(eq(apiKeys.id, created.id));
    expect(JSON.stringify(row)).not.toContain(created.secret);
    expect(row!.secretHash).toMatch(/^[0-9a-f]{64}$/);
    const stored = await t.database.db.select().from(idempotencyRecords);
    expect(JSON.stringify(stored)).not.toContain(created.secret);
  });

  it('a scope-limited key gets 403 naming the missing scope', async () => {
    const { secret } = await t.createApiKey(['agent:read']);
    const response = await t.request('GET', `/v1/projects/${projectId}/events?once=true`, { apiKey: secret });
    expect(response.status).toBe(403);
    const error = await errorOf(response);
    expect(error.code).toBe('forbidden');
    expect(error.message).toContain('run:read');
  });

  it('a creator grants only scopes it holds', async () => {
    const { secret } = await t.createApiKey(['project:admin', 'agent:read']);
    const ok = await t.request('POST', `/v1/projects/${projectId}/api-keys`, { apiKey: secret, body: { name: 'sub', scopes: ['agent:read'] } });
    expect(ok.status).toBe(201);
    const wider = await t.request('POST', `/v1/projects/${projectId}/api-keys`, { apiKey: secret, body: { name: 'sub', scopes: ['agent:write'] } });
    expect(wider.status).toBe(403);
    expect((await errorOf(wider)).message).toContain('agent:write');
    const star = await t.request('POST', `/v1/projects/${projectId}/api-keys`, { apiKey: secret, body: { name: 'sub', scopes: ['*'] } });
    expect(star.status).toBe(403);
  });

  it('works in every project of its organization through a project-local mirror principal', async () => {
    const { secret, id } = await t.createApiKey(['*']);
    const created = await (await t.request('POST', '/v1/projects', { apiKey: secret, body: { slug: 'mirror-target', name: 'M' } })).json();
    const members = await t.request('GET', `/v1/projects/${created.id}/members`, { apiKey: secret });
    expect(members.status).toBe(200);
    const mirrors = await t.database.db
      .select()
      .from(principals)
      .where(eq(principals.subject, `api_key:${id}`));
    expect(mirrors.map((row) => row.projectId).sort()).toEqual([projectId, created.id].sort());
    expect(mirrors.every((row) => row.kind === 'api_key')).toBe(true);
    const context = await (await t.request('GET', '/v1/context', { apiKey: secret })).json();
    expect(context.principal.kind).toBe('api_key');
    expect(context.project.id).toBe(projectId); // non-project paths use the earliest project
  });

  it('a project of another organization is 403', async () => {
    const { secret } = await t.createApiKey(['*']);
    const [org] = await t.database.db.insert(organizations).values({ slug: 'other-org', name: 'Other' }).returning();
    const [foreign] = await t.database.db.insert(projects).values({ organizationId: org!.id, slug: 'foreign', name: 'F' }).returning();
    for (const path of [`/v1/projects/${foreign!.id}/members`, `/v1/projects/${foreign!.id}`, `/v1/projects/${foreign!.id}/events?once=true`]) {
      const response = await t.request('GET', path, { apiKey: secret });
      expect(response.status).toBe(403);
    }
    const byCookie = await t.request('GET', `/v1/projects/${foreign!.id}`, { cookie });
    expect(byCookie.status).toBe(403);
    const org2 = await t.request('GET', `/v1/organizations/${org!.id}`, { apiKey: secret });
    expect(org2.status).toBe(403);
  });

  it('can be listed without secrets and revoked; a revoked key is 401', async () => {
    const { secret, id } = await t.createApiKey(['agent:read'], 'to-revoke');
    expect((await t.request('GET', '/v1/context', { apiKey: secret })).status).toBe(200);
    const list = await (await t.request('GET', `/v1/projects/${projectId}/api-keys?limit=200`, { cookie })).json();
    const listed = list.data.find((key: { id: string }) => key.id === id);
    expect(listed).toMatchObject({ name: 'to-revoke', scopes: ['agent:read'], secretHint: secret.slice(-4), revokedAt: null });
    expect(JSON.stringify(list)).not.toContain(secret);
    const revoke = await t.request('DELETE', `/v1/projects/${projectId}/api-keys/${id}`, { cookie });
    expect(await revoke.json()).toEqual({ id, revoked: true });
    expect((await t.request('GET', '/v1/context', { apiKey: secret })).status).toBe(401);
    expect((await t.request('DELETE', `/v1/projects/${projectId}/api-keys/${id}`, { cookie })).status).toBe(404);
  });

  // Issue 28: revoking a key revokes the keys it made, and theirs, in the same transaction.
  const keyMadeBy = async (creator: string, scopes: string[], name: string) => {
    const response = await t.request('POST', `/v1/projects/${projectId}/api-keys`, { apiKey: creator, body: { name, scopes } });
    return { status: response.status, body: await response.json() };
  };

  it('revoking a key revokes the keys it created, transitively; keys made otherwise keep working', async () => {
    const parent = await t.createApiKey(['project:admin', 'agent:read'], 'parent');
    const child = await keyMadeBy(parent.secret, ['project:admin', 'agent:read'], 'child');
    expect(child.status).toBe(201);
    const grandchild = await keyMadeBy(child.body.secret, ['agent:read'], 'grandchild');
    expect(grandchild.status).toBe(201);
    const bystander = await t.createApiKey(['agent:read'], 'bystander');
    for (const secret of [parent.secret, child.body.secret, grandchild.body.secret])
      expect((await t.request('GET', '/v1/context', { apiKey: secret })).status).toBe(200);

    const revoke = await t.request('DELETE', `/v1/projects/${projectId}/api-keys/${parent.id}`, { cookie });
    expect(await revoke.json()).toEqual({ id: parent.id, revoked: true });
    for (const secret of [parent.secret, child.body.secret, grandchild.body.secret])
      expect((await t.request('GET', '/v1/context', { apiKey: secret })).status).toBe(401);
    expect((await keyMadeBy(child.body.secret, ['agent:read'], 'survivor')).status).toBe(401);
    expect((await t.request('GET', '/v1/context', { apiKey: bystander.secret })).status).toBe(200);
    const rows = await t.database.db.select({ id: apiKeys.id, revokedAt: apiKeys.revokedAt }).from(apiKeys);
    const revokedAt = new Map(rows.map((row) => [row.id, row.revokedAt?.getTime() ?? null]));
    // One transaction: one moment for the whole chain.
    expect(new Set([parent.id, child.body.id, grandchild.body.id].map((id) => revokedAt.get(id))).size).toBe(1);
    expect(revokedAt.get(parent.id)).not.toBeNull();
    expect(revokedAt.get(bystander.id)).toBeNull();
  });

  it('a key created by a key while that key is revoked does not survive the revocation', async () => {
    for (let round = 0; round < 8; round += 1) {
      const parent = await t.createApiKey(['project:admin', 'agent:read'], `racer-${round}`);
      const [made] = await Promise.all([
        keyMadeBy(parent.secret, ['agent:read'], `racer-${round}-child`),
        t.request('DELETE', `/v1/projects/${projectId}/api-keys/${parent.id}`, { cookie }),
      ]);
      // Either the creation lost the race (401) or its key was revoked with its creator.
      if (made.status === 201) expect((await t.request('GET', '/v1/context', { apiKey: made.body.secret })).status, `round ${round}`).toBe(401);
      else expect(made.status, `round ${round}`).toBe(401);
    }
  });

  // The two orders of the race, made deterministic: one side runs in a transaction the test holds
  // open (the real verb, as the key itself), the other is a request that must wait for its row
  // lock. Needs a second connection, so PostgreSQL only (PGlite has one).
  const asKey = async (secret: string): Promise<ServiceContext> => {
    const ctx = systemContext({ db: t.database.db, logger: t.deps.logger });
    return { ...ctx, actor: await authenticateApiKey({ ctx, deps: { keyring: t.deps.keyring }, input: { secret, projectId } }) };
  };
  const waitForLockWaiter = async () => {
    const sql = postgres(t.database.url!, { max: 1, onnotice: () => {} });
    try {
      for (let tries = 0; tries < 200; tries += 1) {
        const [row] = await sql<
          { waiting: number }[]
        >`select count(*)::int as waiting from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`;
        if (row!.waiting > 0) return;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      throw new Error('no request waited for the row lock');
    } finally {
      await sql.end({ timeout: 5 });
    }
  };
  /** Runs `fn` in a transaction that stays open, its row locks held, until `commit` is called. */
  const heldTransaction = <T>(ctx: ServiceContext, fn: (tx: ServiceContext) => Promise<T>) =>
    new Promise<{ result: T; commit: () => Promise<void> }>((resolve, reject) => {
      let commit!: () => void;
      const committed = new Promise<void>((release) => (commit = release));
      const finished: Promise<void> = t.database.db.transaction(async (db) => {
        const result = await fn({ ...ctx, db, inTransaction: true, afterCommit: [] });
        resolve({ result, commit: () => (commit(), finished) });
        await committed;
      });
      finished.catch(reject);
    });
  const onPostgres = inject('database').kind === 'postgres';

  it.skipIf(!onPostgres)('a key being created when its creator is revoked commits first and is revoked with the chain', async () => {
    const parent = await t.createApiKey(['project:admin', 'agent:read'], 'in-flight-parent');
    const creation = await heldTransaction(await asKey(parent.secret), (tx) =>
      createApiKey({ ctx: tx, keyring: t.deps.keyring, input: { name: 'in-flight-child', scopes: ['agent:read'] } }),
    );
    const revoking = t.request('DELETE', `/v1/projects/${projectId}/api-keys/${parent.id}`, { cookie });
    await waitForLockWaiter();
    await creation.commit();
    expect((await revoking).status).toBe(200);
    expect((await t.request('GET', '/v1/context', { apiKey: creation.result.secret })).status).toBe(401);
    const [child] = await t.database.db.select({ revokedAt: apiKeys.revokedAt }).from(apiKeys).where(eq(apiKeys.id, creation.result.id));
    const [revokedParent] = await t.database.db.select({ revokedAt: apiKeys.revokedAt }).from(apiKeys).where(eq(apiKeys.id, parent.id));
    expect(child!.revokedAt).toEqual(revokedParent!.revokedAt);
  });

  it.skipIf(!onPostgres)('a key asked for while its creator is being revoked waits for the revocation and is refused', async () => {
    const parent = await t.createApiKey(['project:admin', 'agent:read'], 'revoked-first-parent');
    const revoker = await t.createApiKey(['project:admin'], 'revoker');
    // Used once, so authenticating the creation below writes nothing and reaches the creator lock.
    expect((await t.request('GET', '/v1/context', { apiKey: parent.secret })).status).toBe(200);
    const revocation = await heldTransaction(await asKey(revoker.secret), (tx) => revokeApiKey({ ctx: tx, input: { apiKeyId: parent.id } }));
    const creating = keyMadeBy(parent.secret, ['agent:read'], 'too-late');
    await waitForLockWaiter();
    await revocation.commit();
    expect((await creating).status).toBe(401);
    expect(await t.database.db.select({ id: apiKeys.id }).from(apiKeys).where(eq(apiKeys.name, 'too-late'))).toEqual([]);
  });
});
