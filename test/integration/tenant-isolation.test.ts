import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isMutation } from '../../api/mutations.ts';
import { rowsOf } from '../../db/client.ts';
import { uploads } from '../../db/schema/index.ts';
import { SCOPES } from '../../domain/scopes.ts';
import { createBrowserSession } from '../../services/access/auth/index.ts';
import { systemContext } from '../../services/kernel/service-context.ts';
import { recordToolCalls } from '../../services/runtime/tool-calls/index.ts';
import { createProvider } from '../fixtures/model-vendors/helpers.ts';
import { startFakeModelProviders, type FakeModelProviders } from '../fixtures/model-vendors/catalog-server.ts';
import { createTestApp, type RequestOptions, type TestApp, type TestResponse } from '../support/app.ts';
import { createForeignOrganization } from '../support/foreign-organization.ts';
import { registeredRoutes, routeParameters, type Route } from '../support/routes.ts';
import { ORDER, tool } from '../support/tool-call-app.ts';

/**
 * Tenant isolation (issue 16 promise 6), generated from the router so a route added later is
 * covered: every route × (a) principals of another organization, (b) a human of another project
 * of the same organization, (c) a key holding each scope but the one the route needs. Every
 * refusal is 403 or 404 (mutations carry a valid body, so the refusal comes from the lookup,
 * not from validation); no body or header carries the other tenant's ids, names or secrets; and
 * no row of the other tenant changes. The other tenants hold a real resource of every kind a
 * route names, so the checks address real rows, not random ids.
 */

type Tenant = { name: string; organizationId: string; projectId: string; marker: string; ids: Record<string, string>; secrets: string[] };

/** Route parameters whose resources are shared by every project of an organization (spec 1 point 1). */
const ORGANIZATION_SHARED = new Set(['providerId', 'serverId', 'credentialId', 'apiKeyId']);

let t: TestApp;
let fakes: FakeModelProviders;
let routes: Route[];
let own: Tenant;
let neighbour: Tenant; // another project of the same organization
let foreign: Tenant; // another organization
let ownerKey: string;
let ownerCookie: string;
let carolCookie: string; // a human member of the own project only
let foreignKey: string;
let scopeProject: string;

const sys = () => systemContext({ db: t.database.db, logger: t.deps.logger, clock: t.deps.clock });

beforeAll(async () => {
  fakes = await startFakeModelProviders();
  t = await createTestApp({
    env: { ...fakes.env, SVC_OUTBOUND_ALLOW_PRIVATE_NETWORK: 'true', SVC_RATE_LIMIT_API_KEY_PER_SECOND: '0', SVC_RATE_LIMIT_PROJECT_PER_SECOND: '0' },
  });
  routes = registeredRoutes(t.app);
  const login = await t.login();
  ownerCookie = login.cookie;
  ownerKey = (await t.createApiKey(['*'], 'owner key')).secret;
  const organizationId = login.context.organization.id as string;

  own = await seedTenant('own', organizationId, login.context.project.id, ownerKey, { cookie: ownerCookie });
  // Created by the owner's browser session, which provisions the owner there (a cookie session
  // acts in its active project only, so the owner's seeding uses a session of that project).
  const neighbourProject = await t.request('POST', '/v1/projects', { cookie: ownerCookie, body: { slug: 'neighbour', name: 'Neighbour' } });
  expect(neighbourProject.status).toBe(201);
  const neighbourProjectId = (await neighbourProject.json()).id as string;
  const ownerInNeighbour = await createBrowserSession({
    ctx: sys(),
    input: { organizationId, subject: login.context.principal.subject, projectId: neighbourProjectId },
  });
  neighbour = await seedTenant('neighbour', organizationId, neighbourProjectId, ownerKey, { cookie: `svc_session=${ownerInNeighbour.token}` });
  const scopes = await t.request('POST', '/v1/projects', { apiKey: ownerKey, body: { slug: 'scope-matrix', name: 'Scope matrix' } });
  scopeProject = (await scopes.json()).id;

  // Another organization with its own owner (rows as a completed sign-in leaves them).
  const stranger = await createForeignOrganization(t, 'Foreign FOREIGN-MARK');
  foreignKey = stranger.apiKey;
  foreign = await seedTenant('foreign', stranger.organizationId, stranger.projectId, foreignKey, { cookie: stranger.cookie });
  foreign.secrets.push(foreignKey, stranger.sessionToken);

  // Carol: a human member of the own project only (an organization admin could administer
  // every project of the organization by design: spec 2 "Organizations, projects, members").
  const carol = await t.request('POST', `/v1/projects/${own.projectId}/members`, { cookie: ownerCookie, body: { subject: 'carol', role: 'member' } });
  expect(carol.status, await carol.clone().text()).toBe(201);
  carolCookie = `svc_session=${(await createBrowserSession({ ctx: sys(), input: { organizationId, subject: 'carol', projectId: own.projectId } })).token}`;
}, 120_000);

afterAll(async () => {
  await t?.close();
  await fakes?.close();
});

/**
 * A tenant's project with one real resource per route parameter: agent, session and run, tool
 * call, approval, Skill and version, draft, preset, providers, MCP server and credential,
 * webhook, API key and member. Names carry `<NAME>-MARK` so a leak is easy to spot.
 */
async function seedTenant(name: string, organizationId: string, projectId: string, apiKey: string, browser: RequestOptions): Promise<Tenant> {
  const marker = `${name.toUpperCase()}-MARK`;
  const ids: Record<string, string> = { organizationId, projectId };
  const call = async (method: string, path: string, body?: unknown, options: RequestOptions = { apiKey }) => {
    const response = await t.request(method, `/v1/projects/${projectId}${path}`, { ...options, body });
    const json = await response.json();
    expect(response.status, `${name}: ${method} ${path}: ${JSON.stringify(json)}`).toBeLessThan(300);
    return json;
  };
  const provider = await createProvider(t, { apiKey, projectId, key: `openai-${name}`, providerType: 'vendor_a' });
  ids.modelProviderId = provider.id;
  const preset = await call('POST', '/model-presets', {
    key: 'fast',
    displayName: `Fast ${marker}`,
    providerId: provider.id,
    model: 'vendor_a/gpt-5.1',
    routing: {},
  });
  ids.presetId = preset.id;
  const tools = [tool('lookup_order', 'caller', 'never', `Looks up an order ${marker}.`), tool('refund_order', 'caller', 'always', 'Refunds an order.')];
  const agent = await call('POST', '/agents', {
    name: `Agent ${marker}`,
    initialConfig: { systemPrompt: `You are the ${marker} assistant.`, modelPreset: 'fast', tools, limits: { maxTurns: 8 } },
  });
  ids.agentId = agent.id;
  const session = await call('POST', '/sessions', { agentId: agent.id, initialMessage: `Hello from ${marker}` });
  ids.sessionId = session.id;
  ids.runId = session.run.id;
  // No engine runs here, so the session stays busy and a turn sent with ifBusy waits as a pending turn.
  const pending = await call('POST', `/sessions/${session.id}/runs`, { message: `Queued ${marker}`, ifBusy: 'enqueue' });
  ids.turnId = pending.pendingTurn.id;
  const recorded = await recordToolCalls(sys(), {
    runId: session.run.id,
    turnId: 'turn-1',
    calls: [
      { providerCallId: 'call_1', name: 'lookup_order', arguments: { orderId: ORDER }, argumentsText: JSON.stringify({ orderId: ORDER }) },
      { providerCallId: 'call_2', name: 'refund_order', arguments: { orderId: ORDER }, argumentsText: JSON.stringify({ orderId: ORDER }) },
    ],
  });
  ids.toolCallId = recorded.calls.find((recordedCall) => recordedCall.toolName === 'lookup_order')!.toolCallId;
  const approvals = await call('GET', `/approvals?runId=${session.run.id}`);
  ids.approvalId = approvals.data[0].id;
  const skill = await call('POST', '/skills', {
    key: `skill-${name}`,
    displayName: `Skill ${marker}`,
    name: `skill-${name}`,
    description: 'A skill',
    instructions: `# ${marker}`,
  });
  ids.skillId = skill.id;
  ids.versionId = skill.versions[0].id;
  const draft = await call('POST', '/skill-drafts', {});
  ids.draftId = draft.id;
  const sandbox = await call('POST', '/sandbox-providers', {
    key: `sandbox-${name}`,
    displayName: `Sandbox ${marker}`,
    providerType: 'sandbox_vendor',
    apiKey: `sbx-${name}-secret-0001`,
  });
  ids.sandboxProviderId = sandbox.id;
  const storage = await call('POST', '/storage-providers', {
    key: `archive-${name}`,
    displayName: `Archive ${marker}`,
    providerType: 's3',
    endpoint: 'https://s3.example.com',
    region: 'eu-west-1',
    bucket: 'agents',
    accessKeyId: `AKIA${name.toUpperCase()}00000001`,
    secretAccessKey: `${name}-storage-secret-access-key-0001`,
  });
  ids.storageProviderId = storage.id;
  // An upload's row as `POST /uploads` leaves it (this storage endpoint is not reachable here).
  const [upload] = await t.database.db
    .insert(uploads)
    .values({
      organizationId,
      projectId,
      filename: `${name}.txt`,
      contentType: 'text/plain',
      fileClass: 'text',
      sizeBytes: 4,
      sha256: 'a'.repeat(64),
      storageProviderId: storage.id,
      objectKey: `run-files/${'a'.repeat(64)}`,
    })
    .returning();
  ids.uploadId = upload!.id;
  const server = await call('POST', '/mcp-servers', {
    key: `tools-${name}`,
    displayName: `Tools ${marker}`,
    endpointUrl: `https://mcp-${name}.example.com/mcp`,
    transport: 'streamable_http',
  });
  ids.serverId = server.id;
  const credential = await call('POST', '/mcp-credentials', {
    key: `token-${name}`,
    displayName: `Token ${marker}`,
    kind: 'static_bearer',
    secret: `mcp-${name}-bearer-0001`,
  });
  ids.credentialId = credential.id;
  const webhookSecret = `whsec_${Buffer.from(`${name}-webhook-signing-secret-0001`).toString('base64')}`;
  const webhook = await call('POST', '/event-webhooks', {
    displayName: `Hook ${marker}`,
    endpointUrl: 'http://127.0.0.1:9/hooks',
    signingSecret: webhookSecret,
  });
  ids.webhookId = webhook.id;
  const key = await call('POST', '/api-keys', { name: `Key ${marker}`, scopes: ['agent:read'] }, browser);
  ids.apiKeyId = key.id;
  const member = await call('POST', '/members', { subject: `member-${name}`, role: 'viewer' }, browser);
  ids.memberId = member.id ?? member.principalId;
  const schedule = await call('POST', '/schedules', {
    name: `Schedule ${marker}`,
    agentId: agent.id,
    intervalSeconds: 3600,
    message: `Report ${marker}`,
    paused: true,
  });
  ids.scheduleId = schedule.id;
  const store = await call('POST', '/memory-stores', { name: `Memory ${marker}` });
  ids.storeId = store.id;
  const memory = await call('POST', `/memory-stores/${store.id}/memories`, { path: '/notes.md', content: `Remember ${marker}` });
  ids.memoryId = memory.id;
  ids.memoryVersionId = memory.versionId;
  // No delegation without a run engine: its routes name a real session of the tenant and a fresh id.
  ids.delegationId = randomUUID();
  return {
    name,
    organizationId,
    projectId,
    marker,
    ids,
    secrets: [`sbx-${name}-secret-0001`, `${name}-storage-secret-access-key-0001`, `mcp-${name}-bearer-0001`, key.secret, webhookSecret],
  };
}

/** The route's path with the tenant's real resources (`providerId` by the kind the path names). */
function pathFor(route: Route, projectId: string, tenant: Tenant): string {
  return route.path.replace(/:(\w+)(\{[^}]*\})?/g, (_, name: string) => {
    if (name === 'projectId') return projectId;
    if (name === 'providerId')
      return tenant.ids[route.path.includes('sandbox-') ? 'sandboxProviderId' : route.path.includes('storage-') ? 'storageProviderId' : 'modelProviderId']!;
    if (name === 'path') return 'notes.md';
    const id = tenant.ids[name];
    if (!id) throw new Error(`no seeded resource for :${name} in ${route.path}`);
    return id;
  });
}

/** What a tenant's data looks like in text: ids of its resources, its marker, its secrets. */
function tenantTraces(tenant: Tenant, options: { sharedToo: boolean }): string[] {
  const ids = Object.entries(tenant.ids)
    .filter(([name]) => options.sharedToo || !ORGANIZATION_SHARED.has(name.replace(/^(model|sandbox|storage)ProviderId$/, 'providerId')))
    .filter(([name]) => name !== 'delegationId' && (options.sharedToo || name !== 'organizationId'))
    .map(([, id]) => id);
  return [...ids, tenant.marker, ...tenant.secrets];
}

type Observed = { route: string; status: number; text: string };

const configBody = { systemPrompt: 'You are a careful assistant for the support team.', modelPreset: 'fast', limits: { maxTurns: 8 } };
/**
 * A body (and query) each resource mutation accepts, so the matrix reaches the resource lookup
 * instead of stopping at body validation; other mutations get `{}`. A route added later without
 * an entry here fails the matrix with a 400, which says to add one.
 */
const VALID_REQUESTS: Record<string, { body: unknown; query?: string }> = {
  'DELETE /v1/projects/:projectId/skill-drafts/:draftId/entries': { body: {}, query: 'path=notes.md' },
  'PATCH /v1/projects/:projectId/members/:memberId': { body: { role: 'viewer' } },
  'PATCH /v1/projects/:projectId/skills/:skillId': { body: { enabled: false } },
  'PATCH /v1/projects/:projectId/skills/:skillId/versions/:versionId/lifecycle': { body: { status: 'revoked' } },
  'POST /v1/projects/:projectId/agents/:agentId/versions': { body: { config: configBody } },
  'POST /v1/projects/:projectId/approvals/:approvalId/decision': { body: { status: 'approved' } },
  'POST /v1/projects/:projectId/mcp-credentials/:credentialId/rotate': { body: { secret: 'a-rotated-bearer-token-0001' } },
  'POST /v1/projects/:projectId/runs/:runId/resume': { body: { message: 'Go on' } },
  'POST /v1/projects/:projectId/sessions/:sessionId/delegations/:delegationId/messages': { body: { message: 'Go on' } },
  'PATCH /v1/projects/:projectId/sessions/:sessionId': { body: { title: 'Renamed' } },
  'PATCH /v1/projects/:projectId/schedules/:scheduleId': { body: { name: 'Renamed' } },
  'PATCH /v1/projects/:projectId/memory-stores/:storeId': { body: { name: 'Renamed' } },
  'POST /v1/projects/:projectId/memory-stores/:storeId/memories': { body: { path: '/other.md', content: 'x' } },
  'PATCH /v1/projects/:projectId/memory-stores/:storeId/memories/:memoryId': { body: { content: 'changed' } },
  'PATCH /v1/projects/:projectId/model-presets/:presetId': { body: { prices: { input: 1, output: 2 } } },
  'POST /v1/projects/:projectId/sessions/:sessionId/fork': { body: { fromRunId: randomUUID() } },
  'POST /v1/projects/:projectId/sessions/:sessionId/runs': { body: { message: 'Go on' } },
  'POST /v1/projects/:projectId/uploads': { body: { name: 'notes.txt', contentType: 'text/plain', dataBase64: 'aGk=' } },
  'POST /v1/projects/:projectId/skill-drafts/:draftId/directories': { body: { path: 'docs' } },
  'POST /v1/projects/:projectId/skills/:skillId/versions': { body: { name: 'renamed', description: 'A skill', instructions: '# Skill' } },
  'POST /v1/projects/:projectId/tool-calls/:toolCallId/release': { body: { fence: '1' } },
  'POST /v1/projects/:projectId/tool-calls/:toolCallId/renew': { body: { fence: '1' } },
  'POST /v1/projects/:projectId/tool-calls/:toolCallId/result': { body: { fence: '1', safeResult: { version: 1, status: 'success', value: { total: 1 } } } },
  'PUT /v1/projects/:projectId/event-webhooks/:webhookId/credential': {
    body: { signingSecret: `whsec_${Buffer.from('a-rotated-webhook-signing-secret').toString('base64')}` },
  },
  'PUT /v1/projects/:projectId/model-providers/:providerId/credential': { body: { apiKey: 'sk-rotated-provider-key-0001' } },
  'PUT /v1/projects/:projectId/sandbox-providers/:providerId/configuration': {
    body: { target: null, restrictedEgress: { allowedDomains: [], allowedCidrs: [] } },
  },
  'PUT /v1/projects/:projectId/sandbox-providers/:providerId/credential': { body: { apiKey: 'sbx-rotated-key-0001' } },
  'PUT /v1/projects/:projectId/skill-drafts/:draftId/files': {
    body: { path: 'notes.md', contentType: 'text/markdown', dataBase64: Buffer.from('# Notes').toString('base64') },
  },
  'PUT /v1/projects/:projectId/storage-providers/:providerId/credential': {
    body: { accessKeyId: 'AKIAROTATED000000001', secretAccessKey: 'rotated-storage-secret-access-key-0001' },
  },
};

async function send(route: Route, path: string, credential: RequestOptions, options: { validBody?: boolean } = {}): Promise<Observed> {
  const valid = options.validBody ? VALID_REQUESTS[`${route.method} ${route.path}`] : undefined;
  // The feed answers one page with `once=true` instead of streaming.
  if (route.path.endsWith('/events')) path += '?once=true';
  if (valid?.query) path += `?${valid.query}`;
  const response: TestResponse = await t.request(route.method, path, { ...credential, ...(isMutation(route.method) ? { body: valid?.body ?? {} } : {}) });
  const text = `${[...response.headers].map(([name, value]) => `${name}: ${value}`).join('\n')}\n${await response.text()}`;
  return { route: `${route.method} ${route.path}`, status: response.status, text };
}

/** The leaks in `observed`: a trace of the tenant that the request itself did not name. */
function leaks(observed: Observed[], traces: string[], requestPaths: string[]): string[] {
  const found: string[] = [];
  observed.forEach((answer, index) => {
    for (const trace of traces)
      if (answer.text.includes(trace) && !requestPaths[index]!.includes(trace)) found.push(`${answer.route} (${answer.status}) shows ${trace}`);
  });
  return found;
}

/** A digest of every row of a tenant (its organization's rows, or one project's), to prove nothing changed. */
async function tenantDigest(filter: { organizationId: string } | { projectId: string }): Promise<Record<string, string>> {
  const column = 'organizationId' in filter ? 'organization_id' : 'project_id';
  const value = 'organizationId' in filter ? filter.organizationId : filter.projectId;
  const tables = rowsOf<{ table_name: string }>(
    await t.database.db.execute(
      sql`select table_name from information_schema.columns where table_schema = 'public' and column_name = ${column} order by table_name`,
    ),
  ).map((row) => row.table_name);
  const digest: Record<string, string> = {};
  for (const table of tables) {
    if (table === 'browser_sessions') continue; // sign-in bookkeeping of the tenant's own owner
    const [row] = rowsOf<{ digest: string | null }>(
      await t.database.db.execute(
        sql.raw(`select md5(coalesce(string_agg(t::text, '|' order by t::text), '')) as digest from "${table}" t where ${column} = '${value}'`),
      ),
    );
    digest[table] = row!.digest ?? '';
  }
  return digest;
}

const projectRoutes = () => routes.filter((route) => route.path.startsWith('/v1/projects/:projectId'));
const resourceRoutes = () => projectRoutes().filter((route) => routeParameters(route.path).some((name) => name !== 'projectId'));
/** A refusal: 403 or 404 with the error envelope. */
const refused = (answer: Observed) => (answer.status === 403 || answer.status === 404) && /"error":\{"code":"[a-z_]+"/.test(answer.text);

describe('tenant isolation matrix (issue 16, promise 6)', () => {
  it('seeds a real resource for every route parameter', () => {
    for (const route of projectRoutes()) expect(() => pathFor(route, own.projectId, own)).not.toThrow();
    expect(resourceRoutes().length).toBeGreaterThan(50);
  });

  it("refuses another organization's principals on every project and organization route, and leaks nothing", async () => {
    const before = await tenantDigest({ organizationId: foreign.organizationId });
    const observed: Observed[] = [];
    const paths: string[] = [];
    const failures: string[] = [];
    const organizationRoutes = routes.filter((route) => route.path.startsWith('/v1/organizations/:organizationId'));
    for (const credential of [{ apiKey: ownerKey }, { cookie: ownerCookie }, { cookie: carolCookie }] as RequestOptions[]) {
      for (const route of [...projectRoutes(), ...organizationRoutes]) {
        // Their project and their real resources: 403 at the project boundary.
        const path = route.path.includes(':organizationId')
          ? route.path.replace(':organizationId', foreign.organizationId)
          : pathFor(route, foreign.projectId, foreign);
        const answer = await send(route, path, credential);
        observed.push(answer);
        paths.push(path);
        if (answer.status !== 403) failures.push(`${answer.route} on their project → ${answer.status}`);
      }
      for (const route of resourceRoutes()) {
        // Our project, their resources: not found.
        const path = pathFor(route, own.projectId, foreign);
        const answer = await send(route, path, credential, { validBody: true });
        observed.push(answer);
        paths.push(path);
        if (!refused(answer)) failures.push(`${answer.route} with their ids → ${answer.status} ${answer.text.slice(-200)}`);
      }
    }
    // The other direction: their key on our project and our resources.
    for (const route of projectRoutes()) {
      const answer = await send(route, pathFor(route, own.projectId, own), { apiKey: foreignKey });
      if (answer.status !== 403) failures.push(`their key: ${answer.route} on our project → ${answer.status}`);
      for (const trace of tenantTraces(own, { sharedToo: true }))
        if (answer.text.includes(trace) && !pathFor(route, own.projectId, own).includes(trace)) failures.push(`their key: ${answer.route} shows ${trace}`);
    }
    expect(failures).toEqual([]);
    expect(leaks(observed, tenantTraces(foreign, { sharedToo: true }), paths)).toEqual([]);
    expect(await tenantDigest({ organizationId: foreign.organizationId })).toEqual(before);
    // Nothing of theirs reached our event feed either.
    const feed = await send({ method: 'GET', path: 'events' }, `/v1/projects/${own.projectId}/events?once=true`, { apiKey: ownerKey });
    expect(feed.status).toBe(200);
    expect(leaks([feed], tenantTraces(foreign, { sharedToo: true }), [''])).toEqual([]);
  }, 120_000);

  it('refuses a human of another project of the same organization, and project resources across projects', async () => {
    const before = await tenantDigest({ projectId: neighbour.projectId });
    const observed: Observed[] = [];
    const paths: string[] = [];
    const failures: string[] = [];
    for (const route of projectRoutes()) {
      // Carol is a member of our project only: the neighbour's project is closed to her.
      const path = pathFor(route, neighbour.projectId, neighbour);
      const answer = await send(route, path, { cookie: carolCookie });
      observed.push(answer);
      paths.push(path);
      if (answer.status !== 403) failures.push(`carol: ${answer.route} on the neighbour project → ${answer.status}`);
    }
    for (const credential of [{ apiKey: ownerKey }, { cookie: ownerCookie }] as RequestOptions[]) {
      for (const route of resourceRoutes()) {
        // Project resources belong to one project: the neighbour's agent, session, run... are
        // not found through ours, even for a principal that may act in both projects.
        const names = routeParameters(route.path).filter((name) => name !== 'projectId');
        if (names.every((name) => ORGANIZATION_SHARED.has(name))) continue;
        const path = pathFor(route, own.projectId, neighbour);
        const answer = await send(route, path, credential, { validBody: true });
        observed.push(answer);
        paths.push(path);
        if (!refused(answer)) failures.push(`${answer.route} with the neighbour's ids → ${answer.status} ${answer.text.slice(-200)}`);
      }
    }
    expect(failures).toEqual([]);
    expect(leaks(observed, tenantTraces(neighbour, { sharedToo: false }), paths)).toEqual([]);
    expect(await tenantDigest({ projectId: neighbour.projectId })).toEqual(before);
  }, 120_000);

  it('refuses a key holding each scope but the one a route needs, and shows nothing', async () => {
    // One key per scope; each route is tried with every one of them on a project of its own
    // (fresh ids, so a permitted request finds nothing to change).
    const keys = new Map<string, string>();
    for (const scope of SCOPES) keys.set(scope, (await t.createApiKey([scope], `only ${scope}`)).secret);
    const failures: string[] = [];
    const permittedBy = new Map<string, string[]>();
    const matrixRoutes = routes
      .filter((route) => route.path.startsWith('/v1/projects/:projectId') || route.path.startsWith('/v1/organizations/:organizationId'))
      // Last: a permitted delete of the matrix project ends it.
      .sort(
        (a, b) => Number(a.path === '/v1/projects/:projectId' && a.method === 'DELETE') - Number(b.path === '/v1/projects/:projectId' && b.method === 'DELETE'),
      );
    for (const route of matrixRoutes) {
      const path = route.path
        .replace(':organizationId', own.organizationId)
        .replace(':projectId', scopeProject)
        .replace(/:(\w+)(\{[^}]*\})?/g, (_, name: string) => (name === 'path' ? 'notes.md' : randomUUID()));
      const permitted: string[] = [];
      for (const [scope, key] of keys) {
        const answer = await send(route, path, { apiKey: key });
        const scopeRefusal = answer.status === 403 && answer.text.includes('"code":"forbidden"');
        if (!scopeRefusal) {
          permitted.push(scope);
          continue;
        }
        // A refusal is the envelope alone: no data of the project or the route.
        const body = JSON.parse(answer.text.slice(answer.text.indexOf('\n{') + 1));
        if (Object.keys(body).join() !== 'error') failures.push(`${answer.route} with ${scope}: a body beside the error`);
        for (const trace of tenantTraces(own, { sharedToo: true }))
          if (answer.text.includes(trace)) failures.push(`${answer.route} with ${scope} shows ${trace}`);
      }
      permittedBy.set(`${route.method} ${route.path}`, permitted);
      // Every project route needs a scope: at most the one (or, for `project:admin` routes, the
      // admin scope) lets a single-scope key through; never a scope from another family.
      if (permitted.length > 1) failures.push(`${route.method} ${route.path} is permitted by several single scopes: ${permitted.join(', ')}`);
    }
    expect(failures).toEqual([]);
    const routesNeedingOneScope = [...permittedBy.values()].filter((permitted) => permitted.length === 1).length;
    expect(routesNeedingOneScope).toBeGreaterThan(matrixRoutes.length * 0.8);
  }, 180_000);
});
