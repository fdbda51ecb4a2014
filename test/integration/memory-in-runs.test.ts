import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newSigningSecret, startWebhookReceiver, verifyWithStandardWebhooks } from '../fixtures/webhook-receiver/receiver.ts';
import { startRunApp } from '../support/run-app.ts';

/**
 * Memory stores in sessions through the real worker (docs/memory.md): a session attaches stores
 * of its project (`memoryStores` on `POST /sessions`), the model's instructions name them, the
 * memory tools read and write them as versions by the session's run, a stale hash is a tool error
 * the run goes on from, a read-only attachment refuses writes, what one session wrote another
 * session of another agent reads, a fork keeps the stores, a delegated child gets none, and the
 * memory events reach a webhook without the content.
 */
let f: Awaited<ReturnType<typeof startRunApp>>;
const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

beforeAll(async () => {
  // The webhook receiver listens on loopback, which only a server allowing private networks may reach.
  f = await startRunApp({ env: { SVC_OUTBOUND_ALLOW_PRIVATE_NETWORK: 'true' } });
}, 120_000);
afterAll(() => f?.close());

async function agent(systemPrompt = 'You are a support assistant.') {
  const created = await f.call('POST', '/agents', {
    name: `Memory ${randomUUID().slice(0, 6)}`,
    initialConfig: { systemPrompt, modelPreset: 'fast', limits: { maxTurns: 8 } },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.id as string;
}
async function store(name: string, description = '') {
  const created = await f.call('POST', '/memory-stores', { name, description });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body as { id: string; mountPath: string };
}
const requestAt = (index: number) => f.fakes.vendor_a.requests[index]!.body as { instructions: string; tools?: Array<{ name: string }> };
const toolOutputs = (index: number) =>
  ((f.fakes.vendor_a.requests[index]!.body as { input: Array<{ type?: string; output?: string }> }).input ?? [])
    .filter((item) => item.type === 'function_call_output')
    .map((item) => item.output!);
const lastOutput = (index: number) => toolOutputs(index).at(-1)!;

describe('memory stores in runs', () => {
  it('names the attached stores in the instructions, and the tools write versions by the run that another agent’s session reads', async () => {
    const notes = await store(`Customer notes ${randomUUID().slice(0, 4)}`, 'What we know about each customer.');
    const mount = notes.mountPath.split('/')[3]!;
    const writer = await agent();
    f.fakes.vendor_a
      .reply({ toolCalls: [{ name: 'memory_write', arguments: { store: mount, path: '/customers/acme.md', content: 'Renews in March.' } }] })
      .reply({ toolCalls: [{ name: 'memory_list', arguments: { store: mount, pathPrefix: '/customers/' } }] })
      .reply({ text: 'Noted.' });
    const first = f.fakes.vendor_a.requests.length;
    const session = await f.call('POST', '/sessions', {
      agentId: writer,
      initialMessage: 'Acme renews in March.',
      memoryStores: [{ storeId: notes.id, instructions: 'One file per customer.' }],
    });
    expect(session.status, JSON.stringify(session.body)).toBe(201);
    expect((await f.waitForRun(session.body.latestRunId)).state).toBe('completed');

    const instructions = requestAt(first).instructions;
    expect(instructions).toContain('You are a support assistant.');
    expect(instructions).toContain('## Memory');
    expect(instructions).toContain(`- \`${mount}\` (read and write): Customer notes`);
    expect(instructions).toContain('What we know about each customer.');
    expect(instructions).toContain('One file per customer.');
    expect(requestAt(first).tools!.map((tool) => tool.name)).toEqual(expect.arrayContaining(['memory_list', 'memory_read', 'memory_write', 'memory_delete']));
    const written = JSON.parse(lastOutput(first + 1));
    expect(written).toMatchObject({ store: mount, path: '/customers/acme.md', operation: 'created', contentSha256: sha('Renews in March.') });
    expect(JSON.parse(lastOutput(first + 2)).memories.map((entry: { path: string }) => entry.path)).toEqual(['/customers/acme.md']);

    // The version names the session and run that wrote it; the session detail lists the write.
    const versions = (await f.call('GET', `/memory-stores/${notes.id}/memory-versions`)).body.data;
    expect(versions).toHaveLength(1);
    expect(versions[0].writtenBy).toEqual({ type: 'session', sessionId: session.body.id, runId: session.body.latestRunId });
    const detail = (await f.call('GET', `/sessions/${session.body.id}`)).body;
    expect(detail.memoryStores).toEqual([
      {
        storeId: notes.id,
        name: expect.stringContaining('Customer notes'),
        description: 'What we know about each customer.',
        mountPath: notes.mountPath,
        access: 'read_write',
        instructions: 'One file per customer.',
      },
    ]);
    expect(detail.memoryWrites).toMatchObject([
      { runId: session.body.latestRunId, storeId: notes.id, versionId: written.versionId, operation: 'created', path: '/customers/acme.md' },
    ]);
    // memory.written is in the session's feed, without the content.
    const events = detail.debug.productEvents.filter((event: { kind: string }) => event.kind === 'memory.written');
    expect(events.map((event: any) => [event.publicPayload.path, event.publicPayload.runId])).toEqual([['/customers/acme.md', session.body.latestRunId]]);
    expect(JSON.stringify(events)).not.toContain('Renews in March');
    // Nor in what the API and the worker logged.
    expect(f.t.logLines.join('\n')).not.toContain('Renews in March');

    // Another agent's session, read-only: reads what the first wrote, cannot write.
    const reader = await agent('You answer questions about customers.');
    f.fakes.vendor_a
      .reply({ toolCalls: [{ name: 'memory_read', arguments: { store: mount, path: '/customers/acme.md' } }] })
      .reply({ toolCalls: [{ name: 'memory_write', arguments: { store: mount, path: '/customers/acme.md', content: 'Churned.' } }] })
      .reply({ text: 'Acme renews in March.' });
    const second = f.fakes.vendor_a.requests.length;
    const other = await f.call('POST', '/sessions', {
      agentId: reader,
      initialMessage: 'When does Acme renew?',
      memoryStores: [{ storeId: notes.id, access: 'read_only' }],
    });
    expect((await f.waitForRun(other.body.latestRunId)).state).toBe('completed');
    expect(requestAt(second).instructions).toContain(`- \`${mount}\` (read-only)`);
    expect(JSON.parse(lastOutput(second + 1))).toMatchObject({
      path: '/customers/acme.md',
      content: 'Renews in March.',
      contentSha256: sha('Renews in March.'),
    });
    expect(lastOutput(second + 2)).toContain('attached read-only');
    expect((await f.call('GET', `/memory-stores/${notes.id}`)).body).toMatchObject({ memoryCount: 1, versionCount: 1 });
  }, 90_000);

  it('a stale hash is a tool error the run goes on from, and nothing is lost', async () => {
    const notes = await store(`Shared ${randomUUID().slice(0, 4)}`);
    const mount = notes.mountPath.split('/')[3]!;
    const memory = await f.call('POST', `/memory-stores/${notes.id}/memories`, { path: '/todo.md', content: 'one' });
    expect(memory.status).toBe(201);
    // Someone else changes it after the model read it.
    expect((await f.call('PATCH', `/memory-stores/${notes.id}/memories/${memory.body.id}`, { content: 'one, two' })).status).toBe(200);
    f.fakes.vendor_a
      .reply({ toolCalls: [{ name: 'memory_write', arguments: { store: mount, path: '/todo.md', content: 'one, three', expectedContentSha256: sha('one') } }] })
      .reply({ toolCalls: [{ name: 'memory_delete', arguments: { store: mount, path: '/todo.md', expectedContentSha256: sha('one') } }] })
      .reply({
        toolCalls: [
          { name: 'memory_write', arguments: { store: mount, path: '/todo.md', content: 'one, two, three', expectedContentSha256: sha('one, two') } },
        ],
      })
      .reply({ toolCalls: [{ name: 'memory_read', arguments: { store: 'nope', path: '/todo.md' } }] })
      .reply({ toolCalls: [{ name: 'memory_write', arguments: { store: mount, path: '/a/../b', content: 'x' } }] })
      .reply({ text: 'Merged.' });
    const first = f.fakes.vendor_a.requests.length;
    const session = await f.call('POST', '/sessions', { agentId: await agent(), initialMessage: 'Add three.', memoryStores: [{ storeId: notes.id }] });
    expect((await f.waitForRun(session.body.latestRunId)).state).toBe('completed');
    expect(lastOutput(first + 1)).toContain(`its contentSha256 is now ${sha('one, two')}`);
    expect(lastOutput(first + 2)).toContain('nothing was written');
    expect(JSON.parse(lastOutput(first + 3))).toMatchObject({ operation: 'modified', contentSha256: sha('one, two, three') });
    expect(JSON.parse(lastOutput(first + 4)).error.message).toContain('no memory store "nope"');
    expect(JSON.parse(lastOutput(first + 5)).error.message).toContain('"." or ".."');
    const current = (await f.call('GET', `/memory-stores/${notes.id}/memories/${memory.body.id}`)).body;
    expect(current.content).toBe('one, two, three');
    const versions = (await f.call('GET', `/memory-stores/${notes.id}/memory-versions?memoryId=${memory.body.id}&view=full`)).body.data;
    expect(versions.map((version: { content: string }) => version.content)).toEqual(['one, two, three', 'one, two', 'one']);
    const calls = (await f.call('GET', `/sessions/${session.body.id}`)).body.debug.toolCalls;
    expect(calls.map((call: { toolName: string; status: string }) => `${call.toolName} ${call.status}`)).toEqual([
      'memory_write failed',
      'memory_delete failed',
      'memory_write succeeded',
      'memory_read failed',
      'memory_write failed',
    ]);
  }, 90_000);

  it('attaches only stores of the project, each once, at most 8, an archived one read-only; a fork keeps them', async () => {
    const agentId = await agent();
    const notes = await store(`Fork ${randomUUID().slice(0, 4)}`);
    const bad = async (memoryStores: unknown, status: number, path: string) => {
      const answer = await f.call('POST', '/sessions', { agentId, memoryStores });
      expect(answer.status, JSON.stringify(answer.body)).toBe(status);
      expect(answer.body.error.details.path).toBe(path);
    };
    await bad([{ storeId: randomUUID() }], 404, 'body.memoryStores.0.storeId');
    await bad([{ storeId: notes.id }, { storeId: notes.id }], 400, 'body.memoryStores');
    await bad([{ storeId: notes.id, access: 'write' }], 400, 'body.memoryStores.0.access');
    await bad([{ storeId: notes.id, instructions: 'x'.repeat(4097) }], 400, 'body.memoryStores.0.instructions');
    await bad(
      Array.from({ length: 9 }, () => ({ storeId: randomUUID() })),
      400,
      'body.memoryStores',
    );
    const twin = await store(`${(await f.call('GET', `/memory-stores/${notes.id}`)).body.name}!`);
    await bad([{ storeId: notes.id }, { storeId: twin.id }], 400, 'body.memoryStores.1');
    const archived = await store(`Old ${randomUUID().slice(0, 4)}`);
    await f.call('POST', `/memory-stores/${archived.id}/archive`);
    await bad([{ storeId: archived.id }], 409, 'body.memoryStores.0.storeId');
    const other = await f.t.request('POST', '/v1/projects', { apiKey: f.apiKey, body: { slug: `memory-${randomUUID().slice(0, 6)}`, name: 'Other' } });
    const foreign = await f.t.request('POST', `/v1/projects/${(await other.json()).id}/memory-stores`, { apiKey: f.apiKey, body: { name: 'Theirs' } });
    await bad([{ storeId: (await foreign.json()).id }], 404, 'body.memoryStores.0.storeId');

    f.fakes.vendor_a.reply({ text: 'Hello.' });
    const session = await f.call('POST', '/sessions', {
      agentId,
      initialMessage: 'Hi',
      memoryStores: [{ storeId: notes.id }, { storeId: archived.id, access: 'read_only' }],
    });
    expect(session.status, JSON.stringify(session.body)).toBe(201);
    await f.waitForRun(session.body.latestRunId);
    const fork = await f.call('POST', `/sessions/${session.body.id}/fork`, { fromRunId: session.body.latestRunId });
    expect(fork.status, JSON.stringify(fork.body)).toBe(201);
    const forked = (await f.call('GET', `/sessions/${fork.body.id}`)).body;
    expect(forked.memoryStores.map((entry: { storeId: string; access: string }) => [entry.storeId, entry.access])).toEqual([
      [notes.id, 'read_write'],
      [archived.id, 'read_only'],
    ]);
  }, 90_000);

  it('a delegated child session attaches no stores: the delegate is not told of them and has no memory tools', async () => {
    const notes = await store(`Coordinator notes ${randomUUID().slice(0, 4)}`);
    const delegate = await f.call('POST', '/agents', {
      name: `Helper ${randomUUID().slice(0, 6)}`,
      initialConfig: { systemPrompt: 'You are a helper.', modelPreset: 'fast', limits: { maxTurns: 4 } },
    });
    const coordinator = await f.call('POST', '/agents', {
      name: `Coordinator ${randomUUID().slice(0, 6)}`,
      initialConfig: {
        systemPrompt: 'You coordinate.',
        modelPreset: 'fast',
        limits: { maxTurns: 4 },
        delegates: [{ key: 'helper', description: 'The helper.', agentVersionId: delegate.body.latestVersionId, maxParallel: 1 }],
      },
    });
    expect(coordinator.status, JSON.stringify(coordinator.body)).toBe(201);
    f.fakes.vendor_a
      .reply({ toolCalls: [{ name: 'delegate_agent', arguments: { delegateKey: 'helper', message: 'Help.' } }] })
      .reply({ text: 'Helped.' })
      .reply({ text: 'Done.' });
    const first = f.fakes.vendor_a.requests.length;
    const session = await f.call('POST', '/sessions', { agentId: coordinator.body.id, initialMessage: 'Go.', memoryStores: [{ storeId: notes.id }] });
    expect(session.status, JSON.stringify(session.body)).toBe(201);
    expect((await f.waitForRun(session.body.latestRunId)).state).toBe('completed');

    expect(requestAt(first).instructions).toContain('## Memory');
    const child = requestAt(first + 1);
    expect(child.instructions).toContain('You are a helper.');
    expect(child.instructions).not.toContain('## Memory');
    expect(child.instructions).not.toContain(notes.mountPath);
    expect((child.tools ?? []).map((tool) => tool.name)).not.toContain('memory_read');
    const [call] = (await f.call('GET', `/tool-calls?runId=${session.body.latestRunId}`)).body.data;
    const childSession = (await f.call('GET', `/sessions/${call.safeResult.value.childSessionId}`)).body;
    expect(childSession.memoryStores).toEqual([]);
  }, 90_000);

  it('memory.written and memory.deleted reach a webhook subscribed to memory.*, signed, without the content', async () => {
    const receiver = await startWebhookReceiver();
    try {
      const signingSecret = newSigningSecret();
      const hook = await f.call('POST', '/event-webhooks', { displayName: 'Memory', endpointUrl: receiver.url, signingSecret, eventKinds: ['memory.*'] });
      expect(hook.status, JSON.stringify(hook.body)).toBe(201);
      const notes = await store(`Hooked ${randomUUID().slice(0, 4)}`);
      const mount = notes.mountPath.split('/')[3]!;
      f.fakes.vendor_a
        .reply({ toolCalls: [{ name: 'memory_write', arguments: { store: mount, path: '/hooked.md', content: 'The vault opens at nine.' } }] })
        .reply({ toolCalls: [{ name: 'memory_delete', arguments: { store: mount, path: '/hooked.md' } }] })
        .reply({ text: 'Done.' });
      const session = await f.call('POST', '/sessions', { agentId: await agent(), initialMessage: 'Note it.', memoryStores: [{ storeId: notes.id }] });
      expect((await f.waitForRun(session.body.latestRunId)).state).toBe('completed');
      const events = () => receiver.requests.flatMap((request) => request.body.data.events as Array<Record<string, any>>);
      await receiver.waitFor(() => events().filter((event) => event.publicPayload?.storeId === notes.id).length >= 2, 60_000);
      const ours = events().filter((event) => event.publicPayload?.storeId === notes.id);
      expect(ours.map((event) => [event.kind, event.publicPayload.operation, event.publicPayload.path])).toEqual([
        ['memory.written', 'created', '/hooked.md'],
        ['memory.deleted', 'deleted', '/hooked.md'],
      ]);
      expect(ours[0]!.publicPayload).toMatchObject({ sessionId: session.body.id, runId: session.body.latestRunId });
      for (const request of receiver.requests) verifyWithStandardWebhooks(signingSecret, request);
      expect(receiver.requests.map((request) => request.rawBody).join('')).not.toContain('vault');
    } finally {
      await receiver.close();
    }
  }, 90_000);
});
