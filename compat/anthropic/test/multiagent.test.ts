import Anthropic, { BadRequestError } from '@anthropic-ai/sdk';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessions } from '../../../db/schema/index.ts';
import { startRunApp } from '../../../test/support/run-app.ts';
import { serveApp, type ServedApp } from '../../../test/support/http-server.ts';

/**
 * An agent's `multiagent: {type: "coordinator", agents}` through the unmodified official SDK
 * (docs/decisions/anthropic-compat-multiagent.md): the roster resolved to exact versions and read
 * back, kept by an update that leaves it out, cleared by null; what this server does not serve a
 * 400 naming the field; and a coordinator's session that delegates to a roster agent.
 */
let f: Awaited<ReturnType<typeof startRunApp>>;
let served: ServedApp;
const sdk = () => new Anthropic({ baseURL: `${served.baseUrl}/compat/anthropic`, apiKey: f.apiKey });
const refusal = async (call: () => Promise<unknown>) => {
  try {
    await call();
  } catch (error) {
    return error as BadRequestError;
  }
  throw new Error('expected the call to fail');
};

/** Sends the user's message and waits until the fake model has had `calls` more requests; the index of the first. */
async function sendAndAwaitCalls(client: Anthropic, sessionId: string, text: string, calls: number) {
  const first = f.fakes.vendor_a.requests.length;
  await client.beta.sessions.events.send(sessionId, { events: [{ type: 'user.message', content: [{ type: 'text', text }] }] });
  for (let i = 0; f.fakes.vendor_a.requests.length < first + calls; i++) {
    if (i > 600) throw new Error('the coordinator never answered');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return first;
}

beforeAll(async () => {
  f = await startRunApp();
  served = await serveApp(f.t.app.fetch);
}, 120_000);
afterAll(async () => {
  await served?.close();
  await f?.close();
});

describe('multiagent coordinators through the SDK', () => {
  it('resolves the roster to exact versions, keeps it on an update without it, and clears it with null', async () => {
    const client = sdk();
    const researcher = await client.beta.agents.create({ name: 'Researcher', model: 'fast', description: 'Finds things out.' });
    await client.beta.agents.update(researcher.id, { version: 1, system: 'You research carefully.' });
    const writer = await client.beta.agents.create({ name: 'Writer', model: 'fast' });
    const lead = await client.beta.agents.create({
      name: 'Lead',
      model: 'fast',
      multiagent: { type: 'coordinator', agents: [researcher.id, { type: 'agent', id: writer.id, version: 1 }] },
    });
    expect(lead.multiagent).toEqual({
      type: 'coordinator',
      agents: [
        { type: 'agent', id: researcher.id, version: 2 },
        { type: 'agent', id: writer.id, version: 1 },
      ],
    });
    expect((await client.beta.agents.retrieve(lead.id)).multiagent).toEqual(lead.multiagent);
    // The roster is the version's delegates, natively too.
    const native = (await f.call('GET', `/agents/${lead.id}/versions`)).body.data[0];
    expect(native.config.delegates.map((delegate: { key: string; maxParallel: number }) => [delegate.key, delegate.maxParallel])).toEqual([
      ['researcher', 8],
      ['writer', 8],
    ]);
    // Left out, it stays (pinned at the versions it resolved to, though the researcher moves on).
    await client.beta.agents.update(researcher.id, { version: 2, system: 'You research quickly.' });
    const renamed = await client.beta.agents.update(lead.id, { version: 1, system: 'You lead.' });
    expect(renamed.version).toBe(2);
    expect(renamed.multiagent).toEqual(lead.multiagent);
    const cleared = await client.beta.agents.update(lead.id, { version: 2, multiagent: null });
    expect(cleared.multiagent).toBeNull();
    expect((await f.call('GET', `/agents/${lead.id}/versions`)).body.data[0].config.delegates).toEqual([]);
  });

  it('refuses what it does not serve, and rosters that break the rules, each a 400 naming the field', async () => {
    const client = sdk();
    const helper = await client.beta.agents.create({ name: 'Helper', model: 'fast' });
    const lead = await client.beta.agents.create({ name: 'Nested lead', model: 'fast', multiagent: { type: 'coordinator', agents: [helper.id] } });
    const cases: Array<[unknown, string]> = [
      [{ type: 'multiagent_20261001' }, 'multiagent.type'],
      [{ type: 'coordinator', agents: [] }, 'multiagent.agents'],
      [{ type: 'coordinator', agents: Array.from({ length: 21 }, () => helper.id) }, 'multiagent.agents'],
      [{ type: 'coordinator', agents: [{ type: 'self' }, { type: 'self' }] }, 'multiagent.agents.1'],
      [{ type: 'coordinator', agents: [{ type: 'self', id: helper.id }] }, 'multiagent.agents.0.id'],
      [{ type: 'coordinator', agents: [{ type: 'advisor', model: 'fast' }] }, 'multiagent.agents.0.type'],
      [{ type: 'coordinator', agents: [helper.id, { type: 'agent', id: helper.id }] }, 'multiagent.agents.1'],
      [{ type: 'coordinator', agents: ['agent_011CZnotours'] }, 'multiagent.agents.0'],
      [{ type: 'coordinator', agents: [{ type: 'agent', id: helper.id, version: 9 }] }, 'multiagent.agents.0'],
      // Depth limit 1: a coordinator cannot be on a roster.
      [{ type: 'coordinator', agents: [lead.id] }, 'multiagent.agents.0'],
    ];
    for (const [multiagent, field] of cases) {
      const error = await refusal(() => client.beta.agents.create({ name: 'Refused', model: 'fast', multiagent: multiagent as never }));
      expect(error, JSON.stringify(multiagent)).toBeInstanceOf(BadRequestError);
      expect(error.message, JSON.stringify(multiagent)).toContain(`${field}:`);
    }
    const archived = await client.beta.agents.create({ name: 'Gone', model: 'fast' });
    await client.beta.agents.archive(archived.id);
    const error = await refusal(() => client.beta.agents.update(lead.id, { version: 1, multiagent: { type: 'coordinator', agents: [archived.id] } }));
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error.message).toContain('is archived');
    // An update naming the agent itself is told to use "self".
    const itself = await refusal(() => client.beta.agents.update(lead.id, { version: 1, multiagent: { type: 'coordinator', agents: [lead.id] } }));
    expect((itself.error as { error: { message: string } }).error.message).toBe('multiagent.agents.0: names this agent itself; use {"type": "self"}');
  });

  it('a {type: "self"} entry is a copy of the coordinator at its own version, which does not delegate again', async () => {
    const client = sdk();
    const helper = await client.beta.agents.create({ name: 'Side helper', model: 'fast' });
    const lead = await client.beta.agents.create({
      name: 'Solo lead',
      model: 'fast',
      system: 'You split work with copies of yourself.',
      multiagent: { type: 'coordinator', agents: [{ type: 'self' }, helper.id] },
    });
    // Read back resolved to the agent itself, at the version that owns the roster.
    expect(lead.multiagent).toEqual({
      type: 'coordinator',
      agents: [
        { type: 'agent', id: lead.id, version: 1 },
        { type: 'agent', id: helper.id, version: 1 },
      ],
    });
    const updated = await client.beta.agents.update(lead.id, { version: 1, system: 'You split work with copies of yourself, briefly.' });
    expect((updated.multiagent as { agents: unknown[] }).agents[0]).toEqual({ type: 'agent', id: lead.id, version: 2 });
    const native = (await f.call('GET', `/agents/${lead.id}/versions`)).body.data[0];
    expect(native.config.delegates.map((delegate: Record<string, unknown>) => [delegate.key, delegate.self ?? false])).toEqual([
      ['solo-lead', true],
      ['side-helper', false],
    ]);

    const session = await client.beta.sessions.create({ agent: lead.id, environment_id: 'env_default' });
    // The session copies the roster as the full definitions its threads run, not as references.
    const roster = (session.agent.multiagent as { type: string; agents: Array<Record<string, unknown>> } | null)!;
    expect(roster.type).toBe('coordinator');
    expect(roster.agents.map((agent) => [agent.type, agent.id, agent.version, agent.name, agent.system])).toEqual([
      ['agent', lead.id, 2, 'Solo lead', 'You split work with copies of yourself, briefly.'],
      ['agent', helper.id, 1, 'Side helper', null],
    ]);
    expect(roster.agents[1]).toMatchObject({
      model: helper.model,
      tools: helper.tools,
      skills: [],
      mcp_servers: [],
      execution_identity: { type: 'service_account' },
    });
    expect((await client.beta.sessions.retrieve(session.id)).agent.multiagent).toEqual(roster);
    f.fakes.vendor_a
      .reply({ toolCalls: [{ name: 'delegate_agent', arguments: { delegateKey: 'solo-lead', message: 'Take the first half.' } }] })
      .reply({ text: 'First half done.' })
      .reply({ text: 'Both halves done.' });
    const first = await sendAndAwaitCalls(client, session.id, 'Split it.', 3);
    const [copy] = await f.t.database.db.select().from(sessions).where(eq(sessions.delegateKey, 'solo-lead'));
    expect(copy).toMatchObject({ agentId: lead.id, agentVersionId: native.id });
    // The copy runs the coordinator's own instructions, without the delegation tools; the coordinator has them.
    const toolNames = (index: number) => JSON.stringify((f.fakes.vendor_a.requests[index]!.body as { tools?: unknown }).tools ?? []);
    expect(JSON.stringify(f.fakes.vendor_a.requests[first + 1]!.body)).toContain('You split work with copies of yourself, briefly.');
    expect(toolNames(first)).toContain('delegate_agent');
    expect(toolNames(first + 1)).not.toContain('delegate_agent');
    expect(toolNames(first + 1)).not.toContain('message_agent');
    expect(JSON.stringify(f.fakes.vendor_a.requests[first + 2]!.body)).toContain('First half done.');
  });

  it("a coordinator's session hands work to a roster agent, whose child session runs it", async () => {
    const client = sdk();
    const finder = await client.beta.agents.create({ name: 'Capital finder', model: 'fast', system: 'You find capitals.' });
    const lead = await client.beta.agents.create({ name: 'Quiz lead', model: 'fast', multiagent: { type: 'coordinator', agents: [finder.id] } });
    const session = await client.beta.sessions.create({ agent: lead.id, environment_id: 'env_default' });
    f.fakes.vendor_a
      .reply({ toolCalls: [{ name: 'delegate_agent', arguments: { delegateKey: 'capital-finder', message: 'The capital of Norway?' } }] })
      .reply({ text: 'Oslo.' })
      .reply({ text: 'Norway: Oslo.' });
    const first = await sendAndAwaitCalls(client, session.id, 'Capital of Norway?', 3);
    const child = JSON.stringify(f.fakes.vendor_a.requests[first + 1]!.body);
    expect(child).toContain('You find capitals.');
    expect(child).toContain('The capital of Norway?');
    expect(JSON.stringify(f.fakes.vendor_a.requests[first + 2]!.body)).toContain('Oslo.');
    const [childSession] = await f.t.database.db.select().from(sessions).where(eq(sessions.delegateKey, 'capital-finder'));
    expect(childSession).toMatchObject({ agentId: finder.id });
    // The coordinator's last call reached the model; its usage counts once its run has settled.
    await f.waitForRun((await f.call('GET', `/sessions/${session.id}`)).body.latestRunId);

    // The session's threads: the primary (the coordinator) and the child it spawned.
    const threads = [];
    for await (const thread of client.beta.sessions.threads.list(session.id, { limit: 1 })) threads.push(thread);
    expect(threads.map((thread) => [thread.agent.type === 'agent' ? thread.agent.name : null, thread.parent_thread_id === null])).toEqual([
      ['Quiz lead', true],
      ['Capital finder', false],
    ]);
    const [primary, spawned] = threads;
    expect(spawned).toMatchObject({ type: 'session_thread', session_id: session.id, parent_thread_id: primary!.id, archived_at: null });
    // Its usage is the child session's counters (the fake's 12 in, 7 out); its stats time its run.
    expect(spawned!.usage).toMatchObject({ input_tokens: 12, output_tokens: 7, cache_read_input_tokens: 0 });
    expect(spawned!.stats!.active_seconds).toBeGreaterThan(0);
    expect(spawned!.stats!.duration_seconds).toBeGreaterThanOrEqual(spawned!.stats!.active_seconds!);
    expect(spawned!.stats!.startup_seconds).toBeGreaterThanOrEqual(0);
    expect(primary!.usage).toMatchObject({ input_tokens: 24, output_tokens: 14 });
    // The same thread (its age has grown since the list).
    const retrieved = await client.beta.sessions.threads.retrieve(spawned!.id, { session_id: session.id });
    expect({ ...retrieved, stats: null }).toEqual({ ...spawned, stats: null });
    expect((await client.beta.sessions.threads.list(session.id, { statuses: ['terminated'] })).data).toEqual([]);
    // The child thread's own events: the message it was given and its answer.
    const childEvents = [];
    for await (const event of client.beta.sessions.threads.events.list(spawned!.id, { session_id: session.id })) childEvents.push(event);
    const texts = childEvents.flatMap((event) => ('content' in event && Array.isArray(event.content) ? [[event.type, JSON.stringify(event.content)]] : []));
    expect(texts.map(([type]) => type)).toEqual(['user.message', 'agent.message']);
    expect(texts[0]![1]).toContain('The capital of Norway?');
    expect(texts[1]![1]).toContain('Oslo.');
    // Its stream is the child session's: the SDK opens it as it opens a session's (new events only,
    // so a settled child's stays quiet until closed).
    const controller = new AbortController();
    const live = await client.beta.sessions.threads.events.stream(spawned!.id, { session_id: session.id }, { signal: controller.signal });
    expect(live.controller).toBeDefined();
    controller.abort();
    // The primary stream: the child's thread created, sent the message, running, its answer, idle.
    const primaryEvents = [];
    for await (const event of client.beta.sessions.events.list(session.id)) primaryEvents.push(event as unknown as Record<string, unknown>);
    const threadEvents = primaryEvents.filter((event) => String(event.type).includes('thread'));
    expect(threadEvents.map((event) => event.type)).toEqual([
      'session.thread_created',
      'agent.thread_message_sent',
      'session.thread_status_running',
      'agent.thread_message_received',
      'session.thread_status_idle',
    ]);
    expect(threadEvents[0]).toMatchObject({ session_thread_id: spawned!.id, agent_name: 'Capital finder', workflow_run_id: null });
    expect(threadEvents[1]).toMatchObject({ to_session_thread_id: spawned!.id, content: [{ type: 'text', text: 'The capital of Norway?' }] });
    expect(threadEvents[3]).toMatchObject({ from_session_thread_id: spawned!.id, content: [{ type: 'text', text: 'Oslo.' }] });
    expect(threadEvents[4]).toMatchObject({ session_thread_id: spawned!.id, stop_reason: { type: 'end_turn' } });
    // The delegation is the runtime's machinery: no tool use of its own on the primary thread.
    expect(primaryEvents.filter((event) => String(event.type).endsWith('tool_use'))).toEqual([]);
    const missing = await refusal(() => client.beta.sessions.threads.retrieve(primary!.session_id, { session_id: session.id }));
    expect(missing.status).toBe(404);
    // Archiving the child thread closes its delegation; the primary is archived with the session.
    const archived = await client.beta.sessions.threads.archive(spawned!.id, { session_id: session.id });
    expect(archived).toMatchObject({ id: spawned!.id, status: 'terminated', archived_at: expect.any(String) });
    expect((await client.beta.sessions.threads.list(session.id, { statuses: ['terminated'] })).data.map((thread) => thread.id)).toEqual([spawned!.id]);
    expect((await f.call('GET', `/sessions/${session.id}`)).body.delegations[0].state).toBe('closed');
    expect(await refusal(() => client.beta.sessions.threads.archive(primary!.id, { session_id: session.id }))).toBeInstanceOf(BadRequestError);
    // Bad input is a 400 naming the query parameter; another session's thread, or no session, a 404.
    const badStatus = await refusal(() => client.beta.sessions.threads.list(session.id, { statuses: ['asleep' as never] }));
    expect(badStatus).toBeInstanceOf(BadRequestError);
    expect(badStatus.message).toContain('statuses');
    expect(await refusal(() => client.beta.sessions.threads.list(session.id, { page: 'x' }))).toBeInstanceOf(BadRequestError);
    expect((await refusal(() => client.beta.sessions.threads.list('sesn_notours'))).status).toBe(404);
    const other = await client.beta.sessions.create({ agent: finder.id, environment_id: 'env_default' });
    expect((await refusal(() => client.beta.sessions.threads.retrieve(spawned!.id, { session_id: other.id }))).status).toBe(404);
  });
});
