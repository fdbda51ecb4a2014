import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { identities, installation, organizationMemberships } from '../../db/schema/index.ts';
import { ROLE_SCOPES } from '../../domain/members.ts';
import { ROLES, type Role } from '../../domain/scopes.ts';
import { createApp } from '../../api/app.ts';
import { createAppDeps } from '../../scripts/app-deps.ts';
import { edgeProxyEnvironment, startEdgeSigner, type EdgeSigner } from '../fixtures/edge-proxy/edge-signer.ts';
import { createTestApp, TEST_ORIGIN, type RequestOptions, type TestApp, type TestResponse } from '../support/app.ts';

/**
 * Edge-proxy identity (spec 3 "Modes", "Roles", "API keys" 5 and 6) against a real JWKS endpoint
 * and assertions signed in the test: verification, the owner claim, the grant matrix, members by
 * email, project access, the default project, and key revocation racing key issuance.
 */
let edge: EdgeSigner;
let t: TestApp;

type Person = { sub: string; email: string; name: string };
const person = (name: string, domain = 'example.com'): Person => ({ sub: `sub-${name}`, email: `${name}@${domain}`, name });

const as = async (who: Person, method: string, path: string, options: RequestOptions = {}): Promise<TestResponse> => {
  const token = await edge.sign({ sub: who.sub, email: who.email, name: who.name });
  return t.request(method, path, { origin: TEST_ORIGIN, ...options, headers: { 'x-edge-assertion': token, ...options.headers } });
};
const contextOf = async (who: Person) => (await as(who, 'GET', '/v1/context')).json();
const errorOf = async (response: TestResponse) => (await response.json()).error as { code: string; message: string };

const owner = person('olivia');
let defaultProject: string;

beforeAll(async () => {
  edge = await startEdgeSigner();
  t = await createTestApp({ env: edgeProxyEnvironment(edge) });
});
afterAll(async () => {
  await t.close();
  await edge.close();
});

describe('edge assertion verification', () => {
  it('refuses every malformed or foreign assertion with 401 and the envelope', async () => {
    const claims = { sub: 'sub-mallory', email: 'mallory@example.com' };
    const valid = await edge.sign(claims);
    const [header, payload, signature] = valid.split('.');
    const tampered = `${header}.${Buffer.from(JSON.stringify({ ...claims, sub: owner.sub, iss: edge.issuer, aud: edge.audience, exp: 9999999999, iat: 1 })).toString('base64url')}.${signature}`;
    const cases: Array<[string, string]> = [
      ['wrong audience', await edge.sign(claims, { audience: 'some-other-service' })],
      ['wrong issuer', await edge.sign(claims, { issuer: 'https://other-edge.example.test' })],
      ['expired beyond the clock skew', await edge.sign(claims, { expiresIn: -120 })],
      ['alg none', edge.unsigned(claims)],
      ['unknown key id', await edge.sign(claims, { unknownKey: true })],
      ['tampered payload', tampered],
      ['not a JWT', 'garbage'],
    ];
    expect(payload).toBeTruthy();
    for (const [name, token] of cases) {
      const response = await t.request('GET', '/v1/context', { headers: { 'x-edge-assertion': token } });
      expect(response.status, name).toBe(401);
      const error = await errorOf(response);
      expect(error.code, name).toBe('unauthenticated');
      expect(error.message, name).not.toContain(token.slice(0, 20));
    }
    // Nobody was admitted by any of them.
    expect(await t.database.db.select().from(identities).where(eq(identities.subject, owner.sub))).toEqual([]);
  });

  it('accepts an assertion that expired within the small clock skew', async () => {
    const token = await edge.sign({ sub: owner.sub, email: owner.email, name: owner.name }, { expiresIn: -5 });
    expect((await t.request('GET', '/v1/auth/provider')).status).toBe(200);
    const response = await t.request('GET', '/v1/context', { headers: { 'x-edge-assertion': token } });
    expect(response.status).toBe(200);
    const context = await response.json();
    defaultProject = context.project.id;
    expect(context.isIapDefaultProject).toBe(true);
  });

  it('GET /auth/provider reports edge_proxy without authentication', async () => {
    expect(await (await t.request('GET', '/v1/auth/provider')).json()).toEqual({ mode: 'edge_proxy', loginPath: null, logoutSupported: false });
  });
});

describe('the owner claim (spec 3 "Roles" rule 1)', () => {
  it('first verified human owns; later humans join as member; service accounts never claim or join alone', async () => {
    // (The skew test above was the first human on this fresh installation.)
    const first = await contextOf(owner);
    expect(first.principal).toMatchObject({ subject: owner.sub, kind: 'human', organizationRole: 'owner', projectRole: 'owner', scopes: ['*'] });

    const robot = person('deployer', 'my-project.iam.gserviceaccount.com');
    const refused = await as(robot, 'GET', '/v1/context');
    expect(refused.status).toBe(403);
    expect((await errorOf(refused)).message).toMatch(/service identity/);

    const second = await contextOf(person('bruno'));
    expect(second.principal).toMatchObject({ organizationRole: 'member', projectRole: 'member' });
    expect(second.principal.scopes).toEqual(ROLE_SCOPES.member);

    const [claim] = await t.database.db.select().from(installation);
    expect(claim!.ownerClaimedBySubject).toBe(owner.sub);
  });

  it('API keys never claim, restarts and removed owners never reopen the claim', async () => {
    const keyResponse = await as(owner, 'POST', `/v1/projects/${defaultProject}/api-keys`, { body: { name: 'ci', scopes: ['*'] } });
    expect(keyResponse.status).toBe(201);
    const key = (await keyResponse.json()).secret as string;
    const viaKey = await t.request('GET', '/v1/context', { apiKey: key });
    expect((await viaKey.json()).principal).toMatchObject({ kind: 'api_key', organizationRole: null });

    // A second owner removes the first; then the server restarts over the same database.
    const heir = person('hana');
    await contextOf(heir);
    const heirId = (await contextOf(heir)).principal.id;
    expect((await as(owner, 'PATCH', `/v1/projects/${defaultProject}/members/${heirId}`, { body: { role: 'owner' } })).status).toBe(200);
    const ownerId = (await contextOf(owner)).principal.id;
    expect((await as(heir, 'DELETE', `/v1/projects/${defaultProject}/members/${ownerId}`)).status).toBe(200);

    const restarted = createApp(
      await createAppDeps({ settings: t.deps.settings, logger: t.deps.logger, database: t.database, clock: t.deps.clock, runStarter: t.runStarter }),
    );
    const viaRestarted = async (who: Person) =>
      restarted.request('/v1/context', { headers: { 'x-edge-assertion': await edge.sign({ sub: who.sub, email: who.email, name: who.name }) } });
    const newcomer = (await (await viaRestarted(person('ivan'))).json()) as { principal: { organizationRole: string } };
    expect(newcomer.principal.organizationRole).toBe('member');
    // The removed owner stays out; their identity row remains.
    expect((await viaRestarted(owner)).status).toBe(403);
    expect(await t.database.db.select().from(identities).where(eq(identities.subject, owner.sub))).toHaveLength(1);
    expect(await t.database.db.select().from(organizationMemberships).where(eq(organizationMemberships.subject, owner.sub))).toEqual([]);
    // …and the keys they issued were revoked.
    expect((await t.request('GET', '/v1/context', { apiKey: key })).status).toBe(401);
  });
});

describe('the grant matrix (spec 3 "Roles" rule 3), through PATCH and DELETE', () => {
  const boss = person('hana'); // owner since the claim test
  const changers: Record<Role, Person> = { owner: person('otto'), admin: person('ada'), member: person('mia'), viewer: person('vera') };
  let counter = 0;

  beforeAll(async () => {
    for (const role of ROLES) {
      const id = (await contextOf(changers[role])).principal.id;
      if (role !== 'member') expect((await as(boss, 'PATCH', `/v1/projects/${defaultProject}/members/${id}`, { body: { role } })).status).toBe(200);
    }
  });

  const allowed = (changer: Role, target: Role, next: Role | null) =>
    (changer === 'owner' || changer === 'admin') && !(changer === 'admin' && (target === 'owner' || next === 'owner'));

  it('answers every changer × target × new role as the rules say', async () => {
    const mismatches: string[] = [];
    for (const changer of ROLES) {
      for (const target of ROLES) {
        for (const next of [...ROLES, null] as Array<Role | null>) {
          const someone = person(`target-${(counter += 1)}`);
          const targetId = (await contextOf(someone)).principal.id;
          if (target !== 'member') await as(boss, 'PATCH', `/v1/projects/${defaultProject}/members/${targetId}`, { body: { role: target } });
          const response = next
            ? await as(changers[changer], 'PATCH', `/v1/projects/${defaultProject}/members/${targetId}`, { body: { role: next } })
            : await as(changers[changer], 'DELETE', `/v1/projects/${defaultProject}/members/${targetId}`);
          const expected = allowed(changer, target, next) ? 200 : 403;
          if (response.status !== expected) mismatches.push(`${changer} → ${target} to ${next ?? 'removed'}: ${response.status}, expected ${expected}`);
          if (expected === 200 && next) {
            const after = await contextOf(someone);
            if (after.principal.organizationRole !== next || JSON.stringify(after.principal.scopes) !== JSON.stringify(ROLE_SCOPES[next]))
              mismatches.push(`${changer} → ${target} to ${next}: stored ${after.principal.organizationRole}`);
          }
        }
      }
    }
    expect(mismatches).toEqual([]);
  });

  it('nobody changes or removes themselves; API keys cannot grant human access', async () => {
    const selfId = (await contextOf(boss)).principal.id;
    const self = await as(boss, 'PATCH', `/v1/projects/${defaultProject}/members/${selfId}`, { body: { role: 'admin' } });
    expect(self.status).toBe(403);
    expect((await errorOf(self)).message).toMatch(/itself/);
    const key = (await (await as(boss, 'POST', `/v1/projects/${defaultProject}/api-keys`, { body: { name: 'admin key', scopes: ['*'] } })).json()).secret;
    const targetId = (await contextOf(person('keyless'))).principal.id;
    const viaKey = await t.request('PATCH', `/v1/projects/${defaultProject}/members/${targetId}`, { apiKey: key, body: { role: 'admin' } });
    expect(viaKey.status).toBe(403);
    expect((await errorOf(viaKey)).message).toMatch(/API keys cannot grant/);
  });
});

describe('members by email, project access and the default project', () => {
  const boss = person('hana');
  let otherProject: string;

  beforeAll(async () => {
    const created = await as(boss, 'POST', '/v1/projects', { body: { slug: 'team-b', name: 'Team B' } });
    expect(created.status).toBe(201);
    otherProject = (await created.json()).id;
  });

  it('adds a verified person by email with their stored role; an unknown email is 404 and nobody is invited', async () => {
    const pia = person('pia');
    await contextOf(pia);
    // The active project is chosen with switch-project (a cookie), then members are added there.
    const switched = await as(boss, 'POST', '/v1/auth/switch-project', { body: { projectId: otherProject } });
    expect(switched.status).toBe(200);
    const activeCookie = switched.headers.get('set-cookie')!.split(';')[0]!;
    expect(activeCookie).toMatch(/^svc_active_project=/);
    const unknown = await as(boss, 'POST', `/v1/projects/${otherProject}/members`, { body: { email: 'nobody@example.com' }, cookie: activeCookie });
    expect(unknown.status).toBe(404);
    const bySubject = await as(boss, 'POST', `/v1/projects/${otherProject}/members`, {
      body: { subject: pia.sub, role: 'member', scopes: [] },
      cookie: activeCookie,
    });
    expect(bySubject.status).toBe(400);
    const added = await as(boss, 'POST', `/v1/projects/${otherProject}/members`, { body: { email: 'PIA@example.com' }, cookie: activeCookie });
    expect(added.status).toBe(201);
    expect(await added.json()).toMatchObject({
      subject: pia.sub,
      role: 'member',
      organizationRole: 'member',
      email: 'pia@example.com',
      scopes: ROLE_SCOPES.member,
    });
    const again = await as(boss, 'POST', `/v1/projects/${otherProject}/members`, { body: { email: 'pia@example.com' }, cookie: activeCookie });
    expect(again.status).toBe(200);
  });

  it('PATCH {role} changes the organization role, scopes and every project membership at once', async () => {
    const pia = person('pia');
    const piaDefaultId = (await contextOf(pia)).principal.id;
    const changed = await as(boss, 'PATCH', `/v1/projects/${defaultProject}/members/${piaDefaultId}`, { body: { role: 'viewer' } });
    expect(changed.status).toBe(200);
    const cookie = (await as(boss, 'POST', '/v1/auth/switch-project', { body: { projectId: otherProject } })).headers.get('set-cookie')!.split(';')[0]!;
    const members = (await (await as(boss, 'GET', `/v1/projects/${otherProject}/members`, { cookie })).json()).data;
    expect(members.find((m: any) => m.subject === pia.sub)).toMatchObject({ role: 'viewer', organizationRole: 'viewer', scopes: ROLE_SCOPES.viewer });
    expect((await as(boss, 'PATCH', `/v1/projects/${defaultProject}/members/${piaDefaultId}`, { body: { role: 'member', scopes: [] } })).status).toBe(400);
  });

  it("removing project access keeps the organization; the default project's membership cannot be removed", async () => {
    const pia = person('pia');
    const cookie = (await as(boss, 'POST', '/v1/auth/switch-project', { body: { projectId: otherProject } })).headers.get('set-cookie')!.split(';')[0]!;
    const members = (await (await as(boss, 'GET', `/v1/projects/${otherProject}/members`, { cookie })).json()).data;
    const piaThere = members.find((m: any) => m.subject === pia.sub);
    expect((await as(boss, 'DELETE', `/v1/projects/${otherProject}/members/${piaThere.id}/project-access`, { cookie })).status).toBe(200);
    const piaContext = await contextOf(pia);
    expect(piaContext.project.id).toBe(defaultProject);
    expect(piaContext.principal.organizationRole).toBe('viewer');
    // Pia can no longer act in the other project.
    const pathOther = await as(pia, 'GET', `/v1/projects/${otherProject}/agents`);
    expect(pathOther.status).toBe(403);

    const refused = await as(boss, 'DELETE', `/v1/projects/${defaultProject}/members/${piaContext.principal.id}/project-access`);
    expect(refused.status).toBe(409);
    expect((await errorOf(refused)).message).toBe("The default project's membership cannot be removed");
  });

  it('the default project cannot be deleted; another project can', async () => {
    const refused = await as(boss, 'DELETE', `/v1/projects/${defaultProject}`, { headers: {} });
    expect(refused.status).toBe(409);
    const cookie = (await as(boss, 'POST', '/v1/auth/switch-project', { body: { projectId: defaultProject } })).headers.get('set-cookie')!.split(';')[0]!;
    const spare = (await (await as(boss, 'POST', '/v1/projects', { body: { slug: 'spare', name: 'Spare' }, cookie })).json()).id;
    expect((await as(boss, 'DELETE', `/v1/projects/${spare}`, { cookie })).status).toBe(200);
  });

  it('DELETE removes the person from the organization and every project; re-adding by email brings them back as member', async () => {
    const quinn = person('quinn');
    const quinnId = (await contextOf(quinn)).principal.id;
    expect((await as(boss, 'DELETE', `/v1/projects/${defaultProject}/members/${quinnId}`)).status).toBe(200);
    expect((await as(quinn, 'GET', '/v1/context')).status).toBe(403);
    expect((await as(boss, 'POST', `/v1/projects/${defaultProject}/members`, { body: { email: quinn.email } })).status).toBe(201);
    expect((await contextOf(quinn)).principal.organizationRole).toBe('member');
  });
});

describe('browser requests and API keys through the edge', () => {
  const boss = person('hana');

  it('edge-authenticated mutations need the allowed Origin', async () => {
    const response = await as(boss, 'POST', '/v1/projects', { origin: null, body: { slug: 'no-origin', name: 'x' } });
    expect(response.status).toBe(403);
    expect((await errorOf(response)).message).toBe('Request origin is not allowed');
  });

  it('Proxy-Authorization carries the edge credential while Authorization carries the API key (spec 3 "API keys" rule 5)', async () => {
    const key = (await (await as(boss, 'POST', `/v1/projects/${defaultProject}/api-keys`, { body: { name: 'through edge', scopes: ['agent:read'] } })).json())
      .secret;
    const edgeToken = await edge.sign({ sub: 'sub-robot', email: 'robot@ci.iam.gserviceaccount.com' });
    const ok = await t.request('GET', '/v1/context', { apiKey: key, headers: { 'proxy-authorization': `Bearer ${edgeToken}` } });
    expect(ok.status).toBe(200);
    expect((await ok.json()).principal.kind).toBe('api_key');
    const bad = await t.request('GET', '/v1/context', {
      apiKey: key,
      headers: { 'proxy-authorization': `Bearer ${await edge.sign({ sub: 'x' }, { audience: 'other' })}` },
    });
    expect(bad.status).toBe(401);
    // Without an API key, Proxy-Authorization alone identifies the person.
    const person = await t.request('GET', '/v1/context', {
      headers: { 'proxy-authorization': `Bearer ${await edge.sign({ sub: boss.sub, email: boss.email })}` },
    });
    expect((await person.json()).principal.subject).toBe(boss.sub);
  });

  it('a role downgrade revokes the keys that person issued; a racing key creation completes before it or is refused', async () => {
    const adam = person('adam');
    const adamId = (await contextOf(adam)).principal.id;
    const outcomes: string[] = [];
    for (let round = 0; round < 20; round += 1) {
      expect((await as(boss, 'PATCH', `/v1/projects/${defaultProject}/members/${adamId}`, { body: { role: 'admin' } })).status).toBe(200);
      const early = (
        await (await as(adam, 'POST', `/v1/projects/${defaultProject}/api-keys`, { body: { name: `early ${round}`, scopes: ['agent:read'] } })).json()
      ).secret;
      const [creation, downgrade] = await Promise.all([
        as(adam, 'POST', `/v1/projects/${defaultProject}/api-keys`, { body: { name: `race ${round}`, scopes: ['agent:read'] } }),
        as(boss, 'PATCH', `/v1/projects/${defaultProject}/members/${adamId}`, { body: { role: 'member' } }),
      ]);
      expect(downgrade.status).toBe(200);
      expect((await t.request('GET', '/v1/context', { apiKey: early })).status).toBe(401);
      if (creation.status === 201) {
        outcomes.push('created first');
        expect((await t.request('GET', '/v1/context', { apiKey: (await creation.json()).secret })).status).toBe(401);
      } else {
        outcomes.push('refused');
        expect(creation.status).toBe(403);
      }
    }
    expect(outcomes).toHaveLength(20);
  });
});

describe('an edge whose key set cannot be fetched', () => {
  it('answers 503 with Retry-After (retryable), not 401', async () => {
    const down = await startEdgeSigner();
    const token = await down.sign({ sub: 'sub-zoe', email: 'zoe@example.com' });
    const environment = edgeProxyEnvironment(down);
    await down.close();
    const app = await createTestApp({ env: environment });
    try {
      const response = await app.request('GET', '/v1/context', { headers: { 'x-edge-assertion': token } });
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('5');
      expect((await errorOf(response)).code).toBe('service_unavailable');
    } finally {
      await app.close();
    }
  });
});

describe('static keys and the algorithm allow-list', () => {
  it('verifies against a JWKS file, and refuses an algorithm outside SVC_EDGE_ALGORITHMS', async () => {
    const signer = await startEdgeSigner();
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'edge-keys-')), 'jwks.json');
    fs.writeFileSync(file, JSON.stringify(signer.jwks()));
    const base = { SVC_AUTH_MODE: 'edge_proxy', SVC_EDGE_ISSUER: signer.issuer, SVC_EDGE_AUDIENCE: signer.audience, SVC_EDGE_PUBLIC_KEYS_FILE: file };
    const token = await signer.sign({ sub: 'sub-file', email: 'file@example.com' });
    await signer.close();
    const fromFile = await createTestApp({ env: base });
    const rsaOnly = await createTestApp({ env: { ...base, SVC_EDGE_ALGORITHMS: 'RS256' } });
    try {
      const accepted = await fromFile.request('GET', '/v1/context', { headers: { 'x-edge-assertion': token } });
      expect(accepted.status).toBe(200);
      expect(signer.jwksFetches()).toBe(0);
      const refused = await rsaOnly.request('GET', '/v1/context', { headers: { 'x-edge-assertion': token } });
      expect(refused.status).toBe(401);
      expect((await errorOf(refused)).message).toBe("The edge assertion's algorithm is not allowed");
    } finally {
      await fromFile.close();
      await rsaOnly.close();
    }
  });
});
