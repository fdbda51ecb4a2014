import Anthropic, {
  AuthenticationError,
  BadRequestError,
  ConflictError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  toFile,
} from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { organizationMemberships, organizations, principals, projectMemberships, projects, uploads } from '../../../db/schema/index.ts';
import { eq } from 'drizzle-orm';
import { createBrowserSession } from '../../../services/access/auth/index.ts';
import { systemContext } from '../../../services/kernel/service-context.ts';
import { startRunApp } from '../../../test/support/run-app.ts';
import { serveApp, type ServedApp } from '../../../test/support/http-server.ts';
import { createTestApp } from '../../../test/support/app.ts';
import { recordSdkRequests, untilEvent } from '../../../test/support/anthropic-sdk.ts';

/**
 * The Claude Managed Agents–compatible API (issue 32) driven by the official `@anthropic-ai/sdk`,
 * unmodified, its `baseURL` pointed at `/compat/anthropic` of a served app. Every request the
 * SDK makes is recorded, so retries are counted.
 */
let f: Awaited<ReturnType<typeof startRunApp>>;
let served: ServedApp;
const requests = recordSdkRequests();
const { sent } = requests;
const counted = requests.counted;

const sdk = (options: { apiKey?: string; headers?: Record<string, string>; maxRetries?: number } = {}) =>
  new Anthropic({
    baseURL: `${served.baseUrl}/compat/anthropic`,
    apiKey: options.apiKey ?? f.apiKey,
    fetch: requests.fetch,
    maxRetries: options.maxRetries ?? 2,
    defaultHeaders: options.headers ?? {},
  });

const weather = {
  type: 'custom' as const,
  name: 'get_weather',
  description: 'The weather in a city',
  input_schema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] },
};

beforeAll(async () => {
  f = await startRunApp();
  served = await serveApp(f.t.app.fetch);
}, 120_000);
afterAll(async () => {
  if (process.env.DEBUG_COMPAT) console.log(f.t.logLines.filter((line) => line.includes('"error"')).join('\n'));
  await served?.close();
  await f?.close();
});

describe('agents through the SDK', () => {
  it('creates, retrieves by version, updates with the version precondition, lists, pages versions and archives', async () => {
    const client = sdk();
    const agent = await client.beta.agents.create({
      name: 'Weather',
      model: 'fast',
      system: 'You report the weather.',
      tools: [weather],
      metadata: { team: 'ops' },
    });
    expect(agent).toMatchObject({
      type: 'agent',
      name: 'Weather',
      system: 'You report the weather.',
      model: { id: 'fast' },
      version: 1,
      metadata: { team: 'ops' },
      archived_at: null,
      mcp_servers: [],
      multiagent: null,
    });
    expect(agent.tools).toEqual([{ type: 'custom', name: 'get_weather', description: 'The weather in a city', input_schema: weather.input_schema }]);
    // The same agent through the native API: one definition, version 1, a caller tool.
    const native = await f.call('GET', `/agents/${agent.id}`);
    expect(native.body.versions[0].config.tools[0]).toMatchObject({ name: 'get_weather', owner: 'caller', approval: 'never' });

    const updated = await client.beta.agents.update(agent.id, {
      version: 1,
      system: 'You report the weather briefly.',
      metadata: { team: null, tier: 'gold' },
    });
    expect(updated).toMatchObject({ id: agent.id, version: 2, system: 'You report the weather briefly.', metadata: { tier: 'gold' } });
    expect((await client.beta.agents.retrieve(agent.id, { version: 1 })).system).toBe('You report the weather.');
    expect((await client.beta.agents.retrieve(agent.id)).version).toBe(2);

    // A stale version: a ConflictError at once (x-should-retry: false stops the SDK's retries).
    const stale = await counted(() => client.beta.agents.update(agent.id, { version: 1, system: 'Too late.' }));
    expect(stale.error).toBeInstanceOf(ConflictError);
    expect(stale.attempts).toBe(1);
    // Only metadata: kept on the latest version, whose number stays.
    expect(await client.beta.agents.update(agent.id, { metadata: { tier: 'silver' } })).toMatchObject({ version: 2, metadata: { tier: 'silver' } });

    const versions = [];
    for await (const version of client.beta.agents.versions.list(agent.id, { limit: 1 })) versions.push(version.version);
    expect(versions).toEqual([2, 1]);
    const listed = [];
    for await (const item of client.beta.agents.list({ limit: 1000 })) listed.push(item.id);
    expect(listed).toContain(agent.id);

    const archived = await client.beta.agents.archive(agent.id);
    expect(archived.archived_at).not.toBeNull();
  });

  it('an archived agent stays readable with archived_at (retrieve, versions, list with include_archived), takes no update and starts no session; natively it is 404', async () => {
    const client = sdk();
    const agent = await client.beta.agents.create({ name: 'Retired', model: 'fast', system: 'First.', tools: [weather] });
    await client.beta.agents.update(agent.id, { version: 1, system: 'Second.' });
    const session = await client.beta.sessions.create({ agent: agent.id, environment_id: 'env_default' });
    const live = await client.beta.agents.create({ name: 'Still working', model: 'fast' });
    const archived = await client.beta.agents.archive(agent.id);
    expect(archived).toMatchObject({ id: agent.id, version: 2, system: 'Second.', archived_at: expect.any(String) });
    // Archiving it again answers it as it is.
    expect((await client.beta.agents.archive(agent.id)).archived_at).toBe(archived.archived_at);

    expect(await client.beta.agents.retrieve(agent.id)).toEqual(archived);
    expect(await client.beta.agents.retrieve(agent.id, { version: 1 })).toMatchObject({ version: 1, system: 'First.', archived_at: archived.archived_at });
    const versions = [];
    for await (const version of client.beta.agents.versions.list(agent.id)) versions.push([version.version, version.archived_at]);
    expect(versions).toEqual([
      [2, archived.archived_at],
      [1, archived.archived_at],
    ]);
    const listed = async (params: { include_archived?: boolean }) => {
      const found = new Map<string, string | null>();
      for await (const item of client.beta.agents.list({ limit: 1, ...params })) found.set(item.id, item.archived_at);
      return found;
    };
    for (const params of [{}, { include_archived: false }]) {
      const found = await listed(params);
      expect(found.has(agent.id)).toBe(false);
      expect(found.get(live.id)).toBeNull();
    }
    const withArchived = await listed({ include_archived: true });
    expect(withArchived.get(agent.id)).toBe(archived.archived_at);
    expect(withArchived.get(live.id)).toBeNull();

    // Read only: nothing is published to it, no session starts from it (any version); nothing is written.
    const update = await counted(() => client.beta.agents.update(agent.id, { version: 2, system: 'Third.' }));
    expect(update.error).toBeInstanceOf(BadRequestError);
    expect(update.attempts).toBe(1);
    expect((update.error as BadRequestError).error).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', message: expect.stringContaining('archived') },
    });
    for (const ref of [agent.id, { type: 'agent' as const, id: agent.id, version: 1 }]) {
      const started = await counted(() => client.beta.sessions.create({ agent: ref, environment_id: 'env_default' }));
      expect(started.error).toBeInstanceOf(BadRequestError);
      expect(started.attempts).toBe(1);
      expect((started.error as BadRequestError).error).toMatchObject({
        error: { type: 'invalid_request_error', message: expect.stringContaining('archived') },
      });
    }
    expect((await client.beta.agents.retrieve(agent.id)).version).toBe(2);
    const sessions = [];
    for await (const item of client.beta.sessions.list({ agent_id: agent.id })) sessions.push(item.id);
    expect(sessions).toEqual([session.id]);
    // Its session still shows the version it pinned.
    expect((await client.beta.sessions.retrieve(session.id)).agent).toMatchObject({ id: agent.id, version: 2 });

    // The native API keeps its rule: an archived agent is gone.
    expect((await f.call('GET', `/agents/${agent.id}`)).status).toBe(404);
    expect((await f.call('GET', `/agents/${agent.id}/versions`)).status).toBe(404);
    expect(((await f.call('GET', '/agents?limit=100')).body.data as Array<{ id: string }>).map((item) => item.id)).not.toContain(agent.id);
    // An id that is no agent of the project is still a 404 here.
    const unknown = await counted(() => client.beta.agents.retrieve(randomUUID()));
    expect(unknown.error).toBeInstanceOf(NotFoundError);
    expect(unknown.attempts).toBe(1);
  });

  it('refuses what it cannot honour with a 400 naming the field, and writes nothing', async () => {
    const client = sdk();
    const before = (await f.call('GET', '/agents?limit=100')).body.data.length;
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ mcp_servers: [{ type: 'url', name: 'docs', url: 'https://mcp.example.com' }] }, 'mcp_servers'],
      [{ tools: [{ type: 'agent_toolset_20260401', configs: [{ name: 'web_search', enabled: true }] }] }, 'tools.0.configs.0.enabled'],
      [
        { tools: [{ type: 'agent_toolset_20260401', default_config: { permission_policy: { type: 'always_ask' } } }] },
        'tools.0.default_config.permission_policy',
      ],
      [{ tools: [{ type: 'agent_toolset_20260401', configs: [{ name: 'bash', enabled: false }] }] }, 'tools.0.configs'],
      [{ tools: [{ type: 'mcp_toolset', mcp_server_name: 'docs' }] }, 'tools.0'],
      [{ multiagent: { type: 'coordinator', agents: [] } }, 'multiagent'],
      [{ skills: [{ type: 'anthropic', skill_id: 'pdf' }] }, 'skills.0.type'],
      [{ model: 'no-such-preset' }, 'model'],
    ];
    for (const [extra, field] of cases) {
      const refused = await counted(() => client.beta.agents.create({ name: 'Refused', model: 'fast', ...extra } as never));
      expect(refused.error, field).toBeInstanceOf(BadRequestError);
      expect(refused.attempts).toBe(1);
      const body = (refused.error as BadRequestError).error as { error: { type: string; message: string } };
      expect(body.error.type).toBe('invalid_request_error');
      if (field !== 'model') expect(body.error.message).toContain(field);
    }
    expect((await f.call('GET', '/agents?limit=100')).body.data.length).toBe(before);
  });
});

describe('authentication, projects and errors', () => {
  it('takes our API key as Bearer or x-api-key, the project from anthropic-workspace-id, and enforces scopes', async () => {
    expect((await sdk().beta.agents.list()).data).toBeInstanceOf(Array);
    const viaHeader = new Anthropic({
      baseURL: `${served.baseUrl}/compat/anthropic`,
      apiKey: null,
      authToken: null,
      defaultHeaders: { 'x-api-key': f.apiKey },
      fetch: requests.fetch,
    });
    expect((await viaHeader.beta.environments.list()).data[0]!.id).toBe('env_default');
    expect((await sdk({ headers: { 'anthropic-workspace-id': f.projectId } }).beta.environments.retrieve('env_default')).id).toBe('env_default');

    const wrongKey = await counted(() => sdk({ apiKey: 'svc_not-a-real-key' }).beta.agents.list());
    expect(wrongKey.error).toBeInstanceOf(AuthenticationError);
    expect(wrongKey.attempts).toBe(1);
    const otherProject = await counted(() => sdk({ headers: { 'anthropic-workspace-id': '00000000-0000-4000-8000-000000000000' } }).beta.agents.list());
    expect(otherProject.error).toBeInstanceOf(PermissionDeniedError);
    const reader = (await f.t.createApiKey(['agent:read'])).secret;
    const denied = await counted(() => sdk({ apiKey: reader }).beta.agents.create({ name: 'Nope', model: 'fast' }));
    expect(denied.error).toBeInstanceOf(PermissionDeniedError);
    expect(denied.attempts).toBe(1);
  });

  it('a 429 carries retry-after: the SDK waits and retries it; with retries off it is a RateLimitError', async () => {
    const limited = await createTestApp({ env: { SVC_RATE_LIMIT_API_KEY_PER_SECOND: '1', SVC_RATE_LIMIT_API_KEY_BURST: '1' } });
    const server = await serveApp(limited.app.fetch);
    try {
      await limited.login();
      const key = (await limited.createApiKey(['*'])).secret;
      const client = (maxRetries: number) => new Anthropic({ baseURL: `${server.baseUrl}/compat/anthropic`, apiKey: key, fetch: requests.fetch, maxRetries });
      await client(0).beta.agents.list();
      const refused = await counted(() => client(0).beta.agents.list());
      expect(refused.error).toBeInstanceOf(RateLimitError);
      expect(refused.attempts).toBe(1);
      expect(Number((refused.error as RateLimitError).headers?.get('retry-after'))).toBeGreaterThan(0);
      const retried = await counted(() => client(2).beta.agents.list());
      expect(retried.error).toBeUndefined();
      expect(retried.attempts).toBe(2);
    } finally {
      await server.close();
      await limited.close();
    }
  });

  it('answers in the SDK envelope with request-id, and 404 for what this server does not serve', async () => {
    const response = await fetch(`${served.baseUrl}/compat/anthropic/v1/vaults`, {
      headers: { authorization: `Bearer ${f.apiKey}`, 'anthropic-version': '2026-10-21' },
    });
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toContain('application/json');
    const requestId = response.headers.get('request-id');
    expect(requestId).toBeTruthy();
    expect(await response.json()).toEqual({
      type: 'error',
      error: { type: 'not_found_error', message: expect.stringContaining('/vaults') },
      request_id: requestId,
    });
    const error = await counted(() => sdk().beta.agents.retrieve('agent_that_is_no_uuid'));
    expect(error.error).toBeInstanceOf(NotFoundError);
    expect((error.error as NotFoundError).requestID).toBeTruthy();
  });
});

describe('environments through the SDK', () => {
  it('has env_default; creates, updates, lists, archives and deletes; unknown ids are environment_not_found', async () => {
    const client = sdk();
    const created = await client.beta.environments.create({
      name: 'Build',
      description: 'CI',
      config: { type: 'cloud', networking: { type: 'unrestricted' } },
      metadata: { owner: 'ci' },
    });
    expect(created).toMatchObject({
      type: 'environment',
      name: 'Build',
      description: 'CI',
      metadata: { owner: 'ci' },
      archived_at: null,
      config: { type: 'cloud', networking: { type: 'unrestricted' } },
    });
    expect(await client.beta.environments.update(created.id, { name: 'Builds', metadata: { owner: null } })).toMatchObject({
      id: created.id,
      name: 'Builds',
      metadata: {},
    });
    expect(await client.beta.environments.retrieve(created.id)).toMatchObject({ name: 'Builds', metadata: {} });
    const ids = [];
    for await (const environment of client.beta.environments.list({ limit: 1 })) ids.push(environment.id);
    expect(ids[0]).toBe('env_default');
    expect(ids).toContain(created.id);
    expect((await client.beta.environments.archive(created.id)).archived_at).not.toBeNull();
    const active = [];
    for await (const environment of client.beta.environments.list()) active.push(environment.id);
    expect(active).not.toContain(created.id);
    // Archived is read-only, as the SDK's BetaEnvironmentArchivedError (a 400) says: no update, no new session on it.
    const agentId = (await client.beta.agents.create({ name: 'Builder', model: 'fast' })).id;
    for (const refused of [
      () => client.beta.environments.update(created.id, { name: 'Again' }),
      () => client.beta.sessions.create({ agent: agentId, environment_id: created.id }),
    ] as Array<() => Promise<unknown>>) {
      const archived = await counted(refused);
      expect(archived.error).toBeInstanceOf(BadRequestError);
      expect((archived.error as Error).constructor.name).toBe('BetaEnvironmentArchivedError');
      expect(archived.attempts).toBe(1);
    }
    expect(await client.beta.environments.delete(created.id)).toEqual({ id: created.id, type: 'environment_deleted' });
    const missing = await counted(() => client.beta.environments.retrieve(created.id));
    expect(missing.error).toBeInstanceOf(NotFoundError);
    expect((missing.error as Error).constructor.name).toBe('BetaEnvironmentNotFoundError');
    const packages = await counted(() => client.beta.environments.create({ name: 'Pkgs', config: { type: 'cloud', packages: { pip: ['numpy'] } } }));
    expect(packages.error).toBeInstanceOf(BadRequestError);
    expect(JSON.stringify((packages.error as BadRequestError).error)).toContain('config.packages.pip');
  });
});

describe('sessions through the SDK', () => {
  it('creates idle sessions pinned to the latest or a named version, and sessions whose initial events run in order', async () => {
    const client = sdk();
    const agent = await client.beta.agents.create({ name: 'Sessions', model: 'fast', system: 'Version one.' });
    await client.beta.agents.update(agent.id, { version: 1, system: 'Version two.' });

    const idle = await client.beta.sessions.create({ agent: agent.id, environment_id: 'env_default', title: 'Waiting', metadata: { ticket: 'T-1' } });
    expect(idle).toMatchObject({
      type: 'session',
      status: 'idle',
      title: 'Waiting',
      environment_id: 'env_default',
      metadata: { ticket: 'T-1' },
      archived_at: null,
      budget: null,
      resources: [],
      vault_ids: [],
    });
    expect(idle.agent).toMatchObject({ id: agent.id, type: 'agent', version: 2, system: 'Version two.' });
    expect((await f.call('GET', `/sessions/${idle.id}`)).body).toMatchObject({ status: 'idle', latestRunId: null, runs: [] });

    const updated = await client.beta.sessions.update(idle.id, { title: 'Renamed', metadata: { ticket: null, owner: 'ops' } });
    expect(updated).toMatchObject({ id: idle.id, title: 'Renamed', metadata: { owner: 'ops' } });
    expect((await client.beta.sessions.retrieve(idle.id)).metadata).toEqual({ owner: 'ops' });
    const budget = await counted(() => client.beta.sessions.update(idle.id, { budget: { type: 'usd', limit: 5 } } as never));
    expect(budget.error).toBeInstanceOf(BadRequestError);
    expect((await client.beta.sessions.retrieve(idle.id)).title).toBe('Renamed');

    const pinned = await client.beta.sessions.create({ agent: { type: 'agent', id: agent.id, version: 1 }, environment_id: 'env_default' });
    expect(pinned.agent).toMatchObject({ version: 1, system: 'Version one.' });
    expect((await client.beta.sessions.retrieve(pinned.id)).agent.version).toBe(1);

    f.fakes.vendor_a.reply({ text: 'First answer.', delayMs: 300 }).reply({ text: 'Second answer.' });
    const busy = await client.beta.sessions.create({
      agent: agent.id,
      environment_id: 'env_default',
      initial_events: [
        { type: 'user.message', content: [{ type: 'text', text: 'First question' }] },
        {
          type: 'user.message',
          content: [
            { type: 'text', text: 'Second' },
            { type: 'text', text: 'question' },
          ],
        },
      ],
    });
    expect(busy.status).toBe('running');
    const detail = (await f.call('GET', `/sessions/${busy.id}`)).body;
    expect(detail.runs).toHaveLength(1);
    expect(detail.pendingTurns.map((turn: { message: string }) => turn.message)).toEqual(['Second\n\nquestion']);
    const deadline = Date.now() + 30_000;
    let settled = await client.beta.sessions.retrieve(busy.id);
    while (Date.now() < deadline && !(settled.status === 'idle' && (await f.call('GET', `/sessions/${busy.id}`)).body.runs.length === 2)) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      settled = await client.beta.sessions.retrieve(busy.id);
    }
    const runs = (await f.call('GET', `/sessions/${busy.id}`)).body.runs as Array<{ state: string; inputPublic?: unknown }>;
    expect(runs.map((run) => run.state)).toEqual(['completed', 'completed']);
    expect(settled.status).toBe('idle');
    expect(settled.usage.output_tokens).toBeGreaterThan(0);

    const idleOnes = [];
    for await (const session of client.beta.sessions.list({ agent_id: agent.id, statuses: ['idle'] })) idleOnes.push(session.id);
    expect(idleOnes.sort()).toEqual([idle.id, pinned.id, busy.id].sort());
    const none = [];
    for await (const session of client.beta.sessions.list({ agent_id: agent.id, statuses: ['rescheduling'] })) none.push(session.id);
    expect(none).toEqual([]);
  }, 60_000);

  it('refuses what it cannot honour, names the field, and writes nothing', async () => {
    const client = sdk();
    const agent = await client.beta.agents.create({ name: 'Refusals', model: 'fast' });
    const before = (await f.call('GET', `/sessions?agentId=${agent.id}`)).body.data.length;
    const missingEnvironment = await counted(() => client.beta.sessions.create({ agent: agent.id, environment_id: 'env_missing' }));
    expect((missingEnvironment.error as Error).constructor.name).toBe('BetaEnvironmentNotFoundError');
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ agent: { type: 'agent_with_overrides', id: agent.id, system: 'x' } }, 'agent'],
      [{ budget: { type: 'usd', limit: 5 } }, 'budget'],
      [{ vault_ids: ['vlt_1'] }, 'vault_ids'],
      [{ initial_events: [{ type: 'user.define_outcome', description: 'x', rubric: 'y' }] }, 'initial_events.0.type'],
      [
        { initial_events: [{ type: 'user.message', content: [{ type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } }] }] },
        'initial_events.0.content.0.source',
      ],
      [{ initial_events: [{ type: 'user.message', content: [{ type: 'tool_result' }] }] }, 'initial_events.0.content.0.type'],
      [{ resources: [{ type: 'github_repository', url: 'https://github.com/a/b' }] }, 'resources.0'],
      [{ resources: [{ type: 'file', file_id: '00000000-0000-4000-8000-000000000000' }] }, 'resources'],
    ];
    for (const [extra, field] of cases) {
      const refused = await counted(() => client.beta.sessions.create({ agent: agent.id, environment_id: 'env_default', ...extra } as never));
      expect(refused.error, field).toBeInstanceOf(BadRequestError);
      expect(JSON.stringify((refused.error as BadRequestError).error), field).toContain(field);
    }
    const unknownVersion = await counted(() =>
      client.beta.sessions.create({ agent: { type: 'agent', id: agent.id, version: 9 }, environment_id: 'env_default' }),
    );
    expect(unknownVersion.error).toBeInstanceOf(NotFoundError);
    expect((await f.call('GET', `/sessions?agentId=${agent.id}`)).body.data.length).toBe(before);
    expect((await counted(() => client.beta.sessions.retrieve('00000000-0000-4000-8000-000000000000'))).error).toBeInstanceOf(NotFoundError);
  });
});

describe('session events through the SDK', () => {
  async function until<T>(what: string, probe: () => Promise<T | null | undefined | false>, timeoutMs = 30_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await probe();
      if (value) return value;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  const allEvents = async (client: Anthropic, sessionId: string, limit = 1000) => {
    const events = [];
    for await (const event of client.beta.sessions.events.list(sessionId, { limit })) events.push(event);
    return events;
  };

  it('a custom tool round trip: the use, requires_action, one result (a repeat is the same, another a 400), the reply; a message sent meanwhile waits', async () => {
    const client = sdk();
    const agent = await client.beta.agents.create({ name: 'Tools', model: 'fast', tools: [weather] });
    const session = await client.beta.sessions.create({ agent: agent.id, environment_id: 'env_default' });
    f.fakes.vendor_a
      .reply({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] })
      .reply({ text: 'It is sunny in Paris.' })
      .reply({ text: 'You are welcome.' });
    const sent = await client.beta.sessions.events.send(session.id, {
      events: [{ type: 'user.message', content: [{ type: 'text', text: 'Weather in Paris?' }] }],
    });
    expect(sent.data).toEqual([
      { id: expect.stringMatching(/^sevt_/), type: 'user.message', content: [{ type: 'text', text: 'Weather in Paris?' }], processed_at: expect.any(String) },
    ]);

    const use = await until('the tool use', async () => (await allEvents(client, session.id)).find((event) => event.type === 'agent.custom_tool_use'));
    expect(use).toMatchObject({ type: 'agent.custom_tool_use', name: 'get_weather', input: { city: 'Paris' }, evaluated_permission: 'allow' });
    const idle = await until('requires_action', async () => (await allEvents(client, session.id)).find((event) => event.type === 'session.status_idle'));
    expect(idle).toMatchObject({ stop_reason: { type: 'requires_action', event_ids: [use.id] } });
    expect((await client.beta.sessions.retrieve(session.id)).status).toBe('idle');

    // A message while the tool is pending waits (processed_at null) and runs after the turn.
    const queued = await client.beta.sessions.events.send(session.id, { events: [{ type: 'user.message', content: [{ type: 'text', text: 'Thanks!' }] }] });
    expect(queued.data![0]).toMatchObject({ type: 'user.message', processed_at: null });

    const result = { type: 'user.custom_tool_result' as const, custom_tool_use_id: use.id, content: [{ type: 'text' as const, text: '{"forecast":"sunny"}' }] };
    const first = await client.beta.sessions.events.send(session.id, { events: [result] });
    expect(first.data![0]).toMatchObject({ type: 'user.custom_tool_result', custom_tool_use_id: use.id, is_error: false });
    const again = await client.beta.sessions.events.send(session.id, { events: [result] });
    expect(again.data![0]!.id).toBe(first.data![0]!.id);
    const different = await counted(() =>
      client.beta.sessions.events.send(session.id, { events: [{ ...result, content: [{ type: 'text', text: 'rainy' }] }] }),
    );
    expect(different.error).toBeInstanceOf(BadRequestError);
    expect(different.attempts).toBe(1);

    const events = await until('both turns to end', async () => {
      const all = await allEvents(client, session.id);
      return all.filter((event) => event.type === 'session.status_idle' && (event as { stop_reason: { type: string } }).stop_reason.type === 'end_turn')
        .length === 2
        ? all
        : null;
    });
    expect(events.map((event) => event.type)).toEqual([
      'user.message',
      'session.status_running',
      'agent.custom_tool_use',
      'session.status_idle',
      'user.custom_tool_result',
      'session.status_running',
      'agent.message',
      'session.status_idle',
      'user.message',
      'session.status_running',
      'agent.message',
      'session.status_idle',
    ]);
    // The queued message keeps the id its send answered with; the echo of the result is the same event.
    expect(events[8]!.id).toBe(queued.data![0]!.id);
    expect(events[4]!.id).toBe(first.data![0]!.id);
    expect(events[6]).toMatchObject({ content: [{ type: 'text', text: 'It is sunny in Paris.' }] });
    expect(JSON.stringify(f.fakes.vendor_a.requests.at(-2)!.body)).toContain('sunny');
    // Pages of one event give the same events, ids and order.
    expect((await allEvents(client, session.id, 1)).map((event) => event.id)).toEqual(events.map((event) => event.id));
    const filtered = [];
    for await (const event of client.beta.sessions.events.list(session.id, { types: ['agent.message'] })) filtered.push(event.type);
    expect(filtered).toEqual(['agent.message', 'agent.message']);
  }, 60_000);

  it("lists with the SDK's filters: sessions by agent version, creation time and order; events newest first and by time", async () => {
    const client = sdk();
    const agent = await client.beta.agents.create({ name: 'Filtered', model: 'fast' });
    const first = await client.beta.sessions.create({ agent: agent.id, environment_id: 'env_default' });
    await client.beta.agents.update(agent.id, { version: 1, system: 'Second version.' });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = await client.beta.sessions.create({ agent: agent.id, environment_id: 'env_default' });
    const ids = async (params: Record<string, unknown>) => {
      const found = [];
      for await (const item of client.beta.sessions.list({ agent_id: agent.id, ...params })) found.push(item.id);
      return found;
    };
    expect(await ids({ agent_version: 1 })).toEqual([first.id]);
    expect(await ids({ agent_version: 2 })).toEqual([second.id]);
    expect(await ids({ agent_version: 9 })).toEqual([]);
    expect(await ids({})).toEqual([second.id, first.id]);
    expect(await ids({ order: 'asc' })).toEqual([first.id, second.id]);
    expect(await ids({ 'created_at[gte]': second.created_at })).toEqual([second.id]);
    expect(await ids({ 'created_at[lt]': second.created_at })).toEqual([first.id]);
    expect((await counted(() => client.beta.sessions.list({ agent_version: 1 }).then((page) => page.data))).error).toBeInstanceOf(BadRequestError);
    expect((await counted(() => client.beta.sessions.list({ 'created_at[gt]': 'yesterday' }).then((page) => page.data))).error).toBeInstanceOf(BadRequestError);

    f.fakes.vendor_a.reply({ text: 'Filtered answer.' });
    await client.beta.sessions.events.send(first.id, { events: [{ type: 'user.message', content: [{ type: 'text', text: 'Hello' }] }] });
    const ascending = await until('the turn to end', async () => {
      const all = await allEvents(client, first.id);
      return all.some((event) => event.type === 'session.status_idle') ? all : null;
    });
    const descending = [];
    for await (const event of client.beta.sessions.events.list(first.id, { order: 'desc', limit: 2 })) descending.push(event.id);
    expect(descending).toEqual(ascending.map((event) => event.id).reverse());
    const reply = ascending.find((event) => event.type === 'agent.message')!;
    const later = [];
    for await (const event of client.beta.sessions.events.list(first.id, { 'created_at[gte]': reply.processed_at! })) later.push(event);
    expect(later.map((event) => event.id)).toEqual(ascending.filter((event) => event.processed_at! >= reply.processed_at!).map((event) => event.id));
    expect(later.map((event) => event.type)).toContain('agent.message');
    expect(later.map((event) => event.type)).not.toContain('user.message');
  }, 60_000);

  it('model failures: a retried one is a session.error (retrying) before the reply; a refused one ends the turn with retries_exhausted', async () => {
    const client = sdk();
    const agent = await client.beta.agents.create({ name: 'Flaky', model: 'fast' });
    const session = await client.beta.sessions.create({ agent: agent.id, environment_id: 'env_default' });
    const idles = (events: Array<{ type: string }>) => events.filter((event) => event.type === 'session.status_idle');
    f.fakes.vendor_a.fail({ status: 500, message: 'boom' }).reply({ text: 'Recovered.' });
    await client.beta.sessions.events.send(session.id, { events: [{ type: 'user.message', content: [{ type: 'text', text: 'Hi' }] }] });
    const recovered = await until('the turn to end', async () => {
      const all = await allEvents(client, session.id);
      return idles(all).length === 1 ? all : null;
    });
    // The run is rescheduled (our run.retry_scheduled), the error says why, then it runs again.
    expect(recovered.map((event) => event.type)).toEqual([
      'user.message',
      'session.status_running',
      'session.status_rescheduled',
      'session.error',
      'session.status_running',
      'agent.message',
      'session.status_idle',
    ]);
    expect(recovered[3]).toMatchObject({ error: { type: 'model_request_failed_error', retry_status: { type: 'retrying' } } });
    expect(recovered[6]).toMatchObject({ stop_reason: { type: 'end_turn' } });

    f.fakes.vendor_a.fail({ status: 400, message: 'Invalid schema' });
    await client.beta.sessions.events.send(session.id, { events: [{ type: 'user.message', content: [{ type: 'text', text: 'Again' }] }] });
    const failed = await until('the second turn to end', async () => {
      const all = await allEvents(client, session.id);
      return idles(all).length === 2 ? all : null;
    });
    expect(failed.slice(-2)).toMatchObject([
      { type: 'session.error', error: { type: 'model_request_failed_error', retry_status: { type: 'exhausted' } } },
      { type: 'session.status_idle', stop_reason: { type: 'retries_exhausted' } },
    ]);
    expect((await client.beta.sessions.retrieve(session.id)).status).toBe('idle');
  }, 60_000);

  it('applies a send all or nothing, and refuses what it cannot honour', async () => {
    const client = sdk();
    const agent = await client.beta.agents.create({ name: 'Atomic', model: 'fast' });
    const session = await client.beta.sessions.create({ agent: agent.id, environment_id: 'env_default' });
    const mixed = await counted(() =>
      client.beta.sessions.events.send(session.id, {
        events: [{ type: 'user.message', content: [{ type: 'text', text: 'Hi' }] }, { type: 'user.define_outcome', description: 'x', rubric: 'y' } as never],
      }),
    );
    expect(mixed.error).toBeInstanceOf(BadRequestError);
    expect(JSON.stringify((mixed.error as BadRequestError).error)).toContain('events.1.type');
    const badResult = await counted(() =>
      client.beta.sessions.events.send(session.id, { events: [{ type: 'user.custom_tool_result', custom_tool_use_id: 'sevt_nope', content: [] }] }),
    );
    expect(badResult.error).toBeInstanceOf(BadRequestError);
    expect((await f.call('GET', `/sessions/${session.id}`)).body).toMatchObject({ status: 'idle', runs: [] });
    expect(await allEvents(client, session.id)).toEqual([]);
    expect((await counted(() => client.beta.sessions.events.list('not-a-session').then((page) => page.data))).error).toBeInstanceOf(NotFoundError);
  });
});

describe('the SessionToolRunner against this server', () => {
  it('runs a custom tool once; a second runner on the session executes nothing; both stop after the turn ends', async () => {
    const { betaTool } = await import('@anthropic-ai/sdk/helpers/beta/json-schema');
    const client = sdk();
    const agent = await client.beta.agents.create({ name: 'Runner', model: 'fast', tools: [weather] });
    const session = await client.beta.sessions.create({ agent: agent.id, environment_id: 'env_default' });
    const cities: string[] = [];
    const getWeather = betaTool({
      name: 'get_weather',
      description: 'The weather in a city',
      inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      run: async (input) => {
        cities.push(String((input as { city: string }).city));
        return JSON.stringify({ forecast: 'sunny' });
      },
    });
    const drain = async (runner: AsyncIterable<{ name: string; posted: boolean; isError: boolean }>) => {
      const items = [];
      for await (const item of runner) items.push({ name: item.name, posted: item.posted, isError: item.isError });
      return items;
    };
    // The working runner listens before the message is sent (it answers the use the moment it is
    // recorded, while the runtime still writes that turn); the bystander starts once the use is
    // recorded and reads it in its history, answered or not.
    // Idle for 5 s before it stops (a new session reads as idle: the message must come within it).
    const working = drain(client.beta.sessions.events.toolRunner(session.id, { tools: [getWeather], maxIdleMs: 5_000 }));
    await new Promise((resolve) => setTimeout(resolve, 200));
    f.fakes.vendor_a.reply({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Rome' } }] }).reply({ text: 'Sunny in Rome.' });
    await client.beta.sessions.events.send(session.id, { events: [{ type: 'user.message', content: [{ type: 'text', text: 'Weather in Rome?' }] }] });
    const deadline = Date.now() + 30_000;
    for (;;) {
      const page = await client.beta.sessions.events.list(session.id, { types: ['agent.custom_tool_use'] });
      if (page.data.length > 0) break;
      if (Date.now() > deadline) throw new Error('the turn never asked for its tool');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const bystander = drain(client.beta.sessions.events.toolRunner(session.id, { tools: [], maxIdleMs: 5_000 }));
    expect(await working).toEqual([{ name: 'get_weather', posted: true, isError: false }]);
    // It saw the use unanswered (and posted nothing: it has no such tool) or already answered.
    expect((await bystander).filter((item) => item.posted)).toEqual([]);
    expect(cities).toEqual(['Rome']);
    const types = [];
    for await (const event of client.beta.sessions.events.list(session.id)) types.push(event.type);
    expect(types.filter((type) => type === 'user.custom_tool_result')).toHaveLength(1);
    expect(types.at(-2)).toBe('agent.message');
    // A new runner on the finished session finds nothing to run and stops on its own.
    expect(await drain(client.beta.sessions.events.toolRunner(session.id, { tools: [getWeather], maxIdleMs: 500 }))).toEqual([]);
    expect(cities).toEqual(['Rome']);
  }, 60_000);
});

describe('the raw event stream', () => {
  it('flushes headers at once, then frames whose event name is the data type; live only', async () => {
    const client = sdk();
    const agent = await client.beta.agents.create({ name: 'Raw', model: 'fast' });
    const session = await client.beta.sessions.create({ agent: agent.id, environment_id: 'env_default' });
    const abort = new AbortController();
    const response = await fetch(`${served.baseUrl}/compat/anthropic/v1/sessions/${session.id}/events/stream`, {
      headers: { authorization: `Bearer ${f.apiKey}`, accept: 'application/json' },
      signal: abort.signal,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    expect(response.headers.get('request-id')).toBeTruthy();
    f.fakes.vendor_a.reply({ text: 'Hello raw.' });
    await client.beta.sessions.events.send(session.id, { events: [{ type: 'user.message', content: [{ type: 'text', text: 'Hi' }] }] });
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes('event: session.status_idle')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    abort.abort();
    expect(text.startsWith(': connected\n\n')).toBe(true);
    const frames = text.split('\n\n').filter((frame) => frame.includes('data: '));
    const parsed = frames.map((frame) => {
      const lines = Object.fromEntries(frame.split('\n').map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 2)]));
      const data = JSON.parse(lines.data!) as { id: string; type: string };
      expect(lines.event).toBe(data.type);
      expect(lines.id).toBe(data.id);
      return data;
    });
    expect(parsed.map((event) => event.type)).toEqual(['user.message', 'session.status_running', 'agent.message', 'session.status_idle']);
    const listed = [];
    for await (const event of client.beta.sessions.events.list(session.id)) listed.push(event.id);
    expect(parsed.map((event) => event.id)).toEqual(listed);
  });
});

describe('confirmations, interrupts and tenancy through the SDK', () => {
  const gated = { ...weather, name: 'refund', description: 'Refunds an order', permission_policy: { type: 'always_ask' as const } };

  it('a gated custom tool asks; allow lets the client run it, deny tells the model', async () => {
    const client = sdk();
    const agent = await client.beta.agents.create({ name: 'Gated', model: 'fast', tools: [gated as never] });
    expect(agent.tools[0]).toMatchObject({ name: 'refund', permission_policy: { type: 'always_ask' } });
    for (const verdict of ['allow', 'deny'] as const) {
      const session = await client.beta.sessions.create({ agent: agent.id, environment_id: 'env_default' });
      f.fakes.vendor_a.reply({ toolCalls: [{ name: 'refund', arguments: { city: 'A1' } }] }).reply({ text: `Refund ${verdict}.` });
      await client.beta.sessions.events.send(session.id, { events: [{ type: 'user.message', content: [{ type: 'text', text: 'Refund A1' }] }] });
      const asked = await untilEvent(client, session.id, 'session.status_idle');
      const use = asked.find((event) => event.type === 'agent.custom_tool_use')!;
      expect(use).toMatchObject({ name: 'refund', evaluated_permission: 'ask' });
      expect(asked.at(-1)).toMatchObject({ stop_reason: { type: 'requires_action', event_ids: [use.id] } });
      const confirmed = await client.beta.sessions.events.send(session.id, {
        events: [{ type: 'user.tool_confirmation', tool_use_id: use.id, result: verdict, ...(verdict === 'deny' ? { deny_message: 'Not today' } : {}) }],
      });
      expect(confirmed.data![0]).toMatchObject({ type: 'user.tool_confirmation', tool_use_id: use.id, result: verdict });
      if (verdict === 'allow') {
        await untilEvent(client, session.id, 'session.status_idle', 2);
        await client.beta.sessions.events.send(session.id, {
          events: [{ type: 'user.custom_tool_result', custom_tool_use_id: use.id, content: [{ type: 'text', text: '{"refunded":true}' }] }],
        });
      }
      const events = await untilEvent(client, session.id, 'agent.message');
      const types = events.map((event) => event.type);
      expect(types).toContain('user.tool_confirmation');
      const result = events.find((event) => event.type === 'user.custom_tool_result');
      // A denied call is echoed as an error result, so no runner ever executes it.
      expect(result).toMatchObject({ custom_tool_use_id: use.id, is_error: verdict === 'deny' });
      expect(JSON.stringify(f.fakes.vendor_a.requests.at(-1)!.body)).toContain(verdict === 'allow' ? 'refunded' : 'approval_denied');
    }
  }, 60_000);

  it('user.interrupt cancels the running turn; the session is idle again and takes the next message', async () => {
    const client = sdk();
    const agent = await client.beta.agents.create({ name: 'Interrupted', model: 'fast', tools: [weather] });
    const session = await client.beta.sessions.create({ agent: agent.id, environment_id: 'env_default' });
    f.fakes.vendor_a.reply({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] });
    await client.beta.sessions.events.send(session.id, { events: [{ type: 'user.message', content: [{ type: 'text', text: 'Oslo?' }] }] });
    const asked = await untilEvent(client, session.id, 'session.status_idle');
    const use = asked.find((event) => event.type === 'agent.custom_tool_use')!;
    const interrupt = await client.beta.sessions.events.send(session.id, { events: [{ type: 'user.interrupt' }] });
    expect(interrupt.data![0]).toMatchObject({ type: 'user.interrupt' });
    const after = await untilEvent(client, session.id, 'session.status_idle', 2);
    expect(after.map((event) => event.type).slice(-3)).toEqual(['user.interrupt', 'user.custom_tool_result', 'session.status_idle']);
    expect(after.at(-2)).toMatchObject({ custom_tool_use_id: use.id, is_error: true });
    expect(after.at(-1)).toMatchObject({ stop_reason: { type: 'end_turn' } });
    const late = await counted(() =>
      client.beta.sessions.events.send(session.id, {
        events: [{ type: 'user.custom_tool_result', custom_tool_use_id: use.id, content: [{ type: 'text', text: '{}' }] }],
      }),
    );
    expect(late.error).toBeInstanceOf(BadRequestError);
    expect((await counted(() => client.beta.sessions.events.send(session.id, { events: [{ type: 'user.interrupt' }] }))).error).toBeInstanceOf(BadRequestError);
  }, 60_000);

  it("another organization's key sees none of it", async () => {
    const client = sdk();
    const agent = await client.beta.agents.create({ name: 'Private', model: 'fast' });
    const session = await client.beta.sessions.create({ agent: agent.id, environment_id: 'env_default' });
    const skill = await client.beta.skills.create({
      files: [await toFile(Buffer.from('---\nname: private-skill\ndescription: Ours only.\n---\nSecret steps.\n'), 'private-skill/SKILL.md')],
    });
    // An upload's row as `POST /v1/files` leaves it (this storage endpoint is not reachable here).
    const storage = await f.call('POST', '/storage-providers', {
      key: `files-${randomUUID().slice(0, 8)}`,
      displayName: 'Files',
      providerType: 's3',
      endpoint: 'https://s3.example.com',
      region: 'eu-west-1',
      bucket: 'files',
      prefix: null,
      forcePathStyle: true,
      accessKeyId: 'AKIAOURS000000000001',
      secretAccessKey: 'ours-storage-secret-access-key-0001',
    });
    expect(storage.status, JSON.stringify(storage.body)).toBe(201);
    const [ours] = await f.t.database.db.select().from(projects).where(eq(projects.id, f.projectId));
    const [upload] = await f.t.database.db
      .insert(uploads)
      .values({
        organizationId: ours!.organizationId,
        projectId: f.projectId,
        filename: 'private.txt',
        contentType: 'text/plain',
        fileClass: 'text',
        sizeBytes: 1,
        sha256: 'b'.repeat(64),
        storageProviderId: storage.body.id,
        objectKey: `run-files/${'b'.repeat(64)}`,
      })
      .returning();
    // Another organization with its owner (rows as a completed sign-in leaves them) and a key of theirs.
    const db = f.t.database.db;
    const [org] = await db
      .insert(organizations)
      .values({ slug: `stranger-${randomUUID().slice(0, 8)}`, name: 'Stranger' })
      .returning();
    const [project] = await db.insert(projects).values({ organizationId: org!.id, slug: 'stranger', name: 'Stranger' }).returning();
    await db.insert(organizationMemberships).values({ organizationId: org!.id, subject: 'stranger-owner', role: 'owner' });
    const [principal] = await db
      .insert(principals)
      .values({ organizationId: org!.id, projectId: project!.id, kind: 'human', subject: 'stranger-owner', scopes: ['*'] })
      .returning();
    await db.insert(projectMemberships).values({ organizationId: org!.id, projectId: project!.id, principalId: principal!.id, role: 'owner' });
    const browser = await createBrowserSession({
      ctx: systemContext({ db, logger: f.t.deps.logger, clock: f.t.deps.clock }),
      input: { organizationId: org!.id, subject: 'stranger-owner', projectId: project!.id },
    });
    const key = await f.t.request('POST', `/v1/projects/${project!.id}/api-keys`, {
      cookie: `svc_session=${browser.token}`,
      body: { name: 'stranger key', scopes: ['*'] },
    });
    expect(key.status).toBe(201);
    const secret = ((await key.json()) as { secret: string }).secret;
    const stranger = sdk({ apiKey: secret });
    // Naming our project as their workspace is refused.
    expect((await counted(() => sdk({ apiKey: secret, headers: { 'anthropic-workspace-id': f.projectId } }).beta.agents.list())).error).toBeInstanceOf(
      PermissionDeniedError,
    );
    expect((await counted(() => stranger.beta.agents.retrieve(agent.id))).error).toBeInstanceOf(NotFoundError);
    expect((await counted(() => stranger.beta.sessions.retrieve(session.id))).error).toBeInstanceOf(NotFoundError);
    expect((await counted(() => stranger.beta.sessions.events.list(session.id).then((page) => page.data))).error).toBeInstanceOf(NotFoundError);
    const theirs = [];
    for await (const item of stranger.beta.agents.list()) theirs.push(item.id);
    expect(theirs).not.toContain(agent.id);
    // Sessions, files and Skills: nothing of ours is readable or writable with their key.
    const attempts: Array<() => Promise<unknown>> = [
      () => stranger.beta.sessions.archive(session.id),
      () => stranger.beta.sessions.delete(session.id),
      () => stranger.beta.sessions.events.send(session.id, { events: [{ type: 'user.message', content: [{ type: 'text', text: 'hi' }] }] }),
      () => stranger.beta.files.retrieveMetadata(upload!.id),
      () => stranger.beta.files.download(upload!.id),
      () => stranger.beta.files.delete(upload!.id),
      () => stranger.beta.skills.retrieve(skill.id),
    ];
    for (const attempt of attempts) {
      expect((await counted(attempt)).error).toBeInstanceOf(NotFoundError);
    }
    const theirFiles = [];
    for await (const item of stranger.beta.files.list()) theirFiles.push(item.id);
    expect(theirFiles).not.toContain(upload!.id);
    expect((await client.beta.files.retrieveMetadata(upload!.id)).id).toBe(upload!.id);
    expect((await client.beta.sessions.retrieve(session.id)).status).toBe('idle');
  });
});

describe('retries, archive and delete through the SDK', () => {
  const isSend = (sessionId: string) => (request: Request) => request.method === 'POST' && request.url.endsWith(`/sessions/${sessionId}/events`);

  it('a send whose response is lost is retried by the SDK and applied once; the same send on purpose is a new one', async () => {
    const client = sdk();
    const agent = await client.beta.agents.create({ name: 'Lossy', model: 'fast', tools: [weather] });
    const session = await client.beta.sessions.create({ agent: agent.id, environment_id: 'env_default' });
    f.fakes.vendor_a
      .reply({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Rome' } }] })
      .reply({ text: 'Warm in Rome.' })
      .reply({ text: 'Again: warm.' });
    const message = { events: [{ type: 'user.message' as const, content: [{ type: 'text' as const, text: 'Rome?' }] }] };
    requests.loseResponseOf(isSend(session.id));
    const before = sent.length;
    const echoed = await client.beta.sessions.events.send(session.id, message);
    expect(sent.slice(before).map((request) => request.retry)).toEqual(['0', '1']);
    expect(echoed.data![0]).toMatchObject({ type: 'user.message', processed_at: expect.any(String) });
    const asked = await untilEvent(client, session.id, 'session.status_idle');
    expect(asked.filter((event) => event.type === 'user.message')).toHaveLength(1);
    expect((await f.call('GET', `/sessions/${session.id}`)).body.runs).toHaveLength(1);

    const use = asked.find((event) => event.type === 'agent.custom_tool_use')!;
    requests.loseResponseOf(isSend(session.id));
    const result = await client.beta.sessions.events.send(session.id, {
      events: [{ type: 'user.custom_tool_result', custom_tool_use_id: use.id, content: [{ type: 'text', text: '{"celsius":24}' }] }],
    });
    expect(result.data![0]).toMatchObject({ type: 'user.custom_tool_result', custom_tool_use_id: use.id, is_error: false });
    const done = await untilEvent(client, session.id, 'agent.message');
    expect(done.filter((event) => event.type === 'user.custom_tool_result')).toHaveLength(1);
    const detail = (await f.call('GET', `/sessions/${session.id}`)).body as { debug: { toolCalls: Array<{ status: string }> } };
    expect(detail.debug.toolCalls.map((call) => call.status)).toEqual(['succeeded']);

    // The same message again, on purpose (a first attempt), is a new turn.
    await untilEvent(client, session.id, 'session.status_idle', 2);
    await client.beta.sessions.events.send(session.id, message);
    const twice = await untilEvent(client, session.id, 'session.status_idle', 3);
    expect(twice.filter((event) => event.type === 'user.message')).toHaveLength(2);
  }, 60_000);

  it('an Idempotency-Key reused with another body is a 409 conflict_error the SDK does not retry, and writes nothing', async () => {
    const client = sdk();
    const key = `reuse-${randomUUID()}`;
    const agentNames = async () => ((await f.call('GET', '/agents?limit=100')).body.data as Array<{ name: string }>).map((agent) => agent.name);
    const first = await client.beta.agents.create({ name: 'Keyed', model: 'fast' }, { headers: { 'Idempotency-Key': key } });
    // The same key and body: the first answer again.
    const again = await client.beta.agents.create({ name: 'Keyed', model: 'fast' }, { headers: { 'Idempotency-Key': key } }).withResponse();
    expect(again.data.id).toBe(first.id);
    expect(again.response.headers.get('idempotency-replayed')).toBe('true');

    const reused = await counted(() => client.beta.agents.create({ name: 'Keyed differently', model: 'fast' }, { headers: { 'Idempotency-Key': key } }));
    expect(reused.error).toBeInstanceOf(ConflictError);
    expect(reused.attempts).toBe(1);
    const error = reused.error as ConflictError;
    expect(error.headers?.get('x-should-retry')).toBe('false');
    expect(error.error).toEqual({
      type: 'error',
      error: { type: 'conflict_error', message: expect.stringContaining('Idempotency-Key') },
      request_id: error.requestID,
    });
    expect((await agentNames()).filter((name) => name.startsWith('Keyed'))).toEqual(['Keyed']);

    // Raw: the envelope and headers as sent, on another route (an environment).
    const post = (body: unknown) =>
      fetch(`${served.baseUrl}/compat/anthropic/v1/environments`, {
        method: 'POST',
        headers: { authorization: `Bearer ${f.apiKey}`, 'content-type': 'application/json', 'idempotency-key': key },
        body: JSON.stringify(body),
      });
    const created = await post({ name: 'Keyed env' });
    expect(created.status).toBe(200);
    const environmentId = ((await created.json()) as { id: string }).id;
    const conflict = await post({ name: 'Another env' });
    expect(conflict.status).toBe(409);
    expect(conflict.headers.get('x-should-retry')).toBe('false');
    const requestId = conflict.headers.get('request-id');
    expect(requestId).toBeTruthy();
    expect(await conflict.json()).toEqual({
      type: 'error',
      error: { type: 'conflict_error', message: 'This Idempotency-Key was already used with a different request body' },
      request_id: requestId,
    });
    const environments = [];
    for await (const environment of client.beta.environments.list()) environments.push(environment);
    expect(environments.filter((environment) => environment.name === 'Another env')).toEqual([]);
    expect(environments.filter((environment) => environment.name === 'Keyed env').map((environment) => environment.id)).toEqual([environmentId]);
  });

  it('archive ends the turn and the session (terminated, read-only, listed on request); delete makes it gone', async () => {
    const client = sdk();
    const agent = await client.beta.agents.create({ name: 'Ending', model: 'fast', tools: [weather] });
    const session = await client.beta.sessions.create({ agent: agent.id, environment_id: 'env_default' });
    f.fakes.vendor_a.reply({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Lima' } }] });
    await client.beta.sessions.events.send(session.id, { events: [{ type: 'user.message', content: [{ type: 'text', text: 'Lima?' }] }] });
    const asked = await untilEvent(client, session.id, 'session.status_idle');
    const use = asked.find((event) => event.type === 'agent.custom_tool_use')!;
    const queued = await client.beta.sessions.events.send(session.id, { events: [{ type: 'user.message', content: [{ type: 'text', text: 'And Quito?' }] }] });
    expect(queued.data![0]).toMatchObject({ processed_at: null });

    const live = await client.beta.sessions.events.stream(session.id);
    const seen: string[] = [];
    const reading = (async () => {
      for await (const event of live) seen.push(event.type);
    })();
    const archived = await client.beta.sessions.archive(session.id);
    expect(archived).toMatchObject({ id: session.id, status: 'terminated', archived_at: expect.any(String) });
    await reading; // the stream ends after session.status_terminated
    expect(seen.at(-1)).toBe('session.status_terminated');
    const events = await untilEvent(client, session.id, 'session.status_idle', 2);
    expect(events.find((event) => event.type === 'user.custom_tool_result')).toMatchObject({ custom_tool_use_id: use.id, is_error: true });
    expect(events.filter((event) => event.type === 'user.message')).toHaveLength(1); // the queued turn was withdrawn
    expect((await client.beta.sessions.retrieve(session.id)).status).toBe('terminated');

    const refused = await counted(() =>
      client.beta.sessions.events.send(session.id, { events: [{ type: 'user.message', content: [{ type: 'text', text: 'Hello?' }] }] }),
    );
    expect(refused.error).toBeInstanceOf(ConflictError);
    expect(refused.attempts).toBe(1);
    const listed = async (params: { include_archived?: boolean }) => {
      const ids = [];
      for await (const item of client.beta.sessions.list(params)) ids.push(item.id);
      return ids;
    };
    expect(await listed({})).not.toContain(session.id);
    expect(await listed({ include_archived: true })).toContain(session.id);
    // A stream opened on an archived session sends its terminated event and ends.
    const after: string[] = [];
    for await (const event of await client.beta.sessions.events.stream(session.id)) after.push(event.type);
    expect(after).toEqual(['session.status_terminated']);

    const other = await client.beta.sessions.create({ agent: agent.id, environment_id: 'env_default' });
    const watching = await client.beta.sessions.events.stream(other.id);
    const watched: string[] = [];
    const watchingDone = (async () => {
      for await (const event of watching) watched.push(event.type);
    })();
    expect(await client.beta.sessions.delete(other.id)).toEqual({ id: other.id, type: 'session_deleted' });
    await watchingDone;
    expect(watched).toEqual(['session.deleted']);
    expect((await counted(() => client.beta.sessions.retrieve(other.id))).error).toBeInstanceOf(NotFoundError);
    expect((await counted(() => client.beta.sessions.delete(other.id))).error).toBeInstanceOf(NotFoundError);
    expect((await f.call('GET', `/sessions/${other.id}`)).status).toBe(404);
    expect(await listed({ include_archived: true })).not.toContain(other.id);
  }, 60_000);
});
