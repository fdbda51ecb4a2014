import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectLocalSandbox } from '../support/local-sandbox.ts';
import { startRunApp } from '../support/run-app.ts';

/**
 * Memory stores mounted in the sandbox (docs/decisions/memory-in-sessions.md): a bash command
 * sees each attached store at /mnt/memory/<store>/, what it writes there becomes versions by its
 * run when it ends, another agent's session reads them, a read-only mount refuses writes, and two
 * sessions writing one path at once give one version and a conflict, never a silent overwrite.
 */
let f: Awaited<ReturnType<typeof startRunApp>>;
let snapshotId: string;

beforeAll(async () => {
  f = await startRunApp({ env: { SVC_OUTBOUND_ALLOW_PRIVATE_NETWORK: 'true' } });
  snapshotId = await connectLocalSandbox(f.call, { key: 'local', storageKey: 'memory-files' });
}, 120_000);
afterAll(() => f?.close());

async function agent(sandboxed = true) {
  const created = await f.call('POST', '/agents', {
    name: `Sandboxed memory ${randomUUID().slice(0, 6)}`,
    initialConfig: {
      systemPrompt: 'You keep notes.',
      modelPreset: 'fast',
      limits: { maxTurns: 6 },
      ...(sandboxed
        ? { sandbox: { enabled: true, provider: 'local', snapshotId, network: 'none', capabilities: ['filesystem_read', 'filesystem_write', 'shell'] } }
        : {}),
    },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.id as string;
}
async function store(name: string) {
  const created = await f.call('POST', '/memory-stores', { name });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body as { id: string; mountPath: string };
}
const toolOutputs = (index: number) =>
  ((f.fakes.vendor_a.requests[index]!.body as { input: Array<{ type?: string; output?: string }> }).input ?? [])
    .filter((item) => item.type === 'function_call_output')
    .map((item) => item.output!);
const requestAt = (index: number) => f.fakes.vendor_a.requests[index]!.body as { instructions: string };
async function versions(storeId: string) {
  return (await f.call('GET', `/memory-stores/${storeId}/memory-versions?view=full&limit=100`)).body.data as Array<Record<string, any>>;
}

describe('memory stores in the sandbox', () => {
  it('a bash command writes to /mnt/memory, another agent reads it, a read-only mount refuses writes', async () => {
    const notes = await store(`Notes ${randomUUID().slice(0, 4)}`);
    const mount = notes.mountPath;
    f.fakes.vendor_a
      .reply({
        toolCalls: [
          { name: 'bash', arguments: { command: `mkdir -p ${mount}todo && echo 'ship the memory mount' > ${mount}todo/today.md && ls -R ${mount}` } },
        ],
      })
      .reply({ text: 'Written down.' });
    const first = f.fakes.vendor_a.requests.length;
    const writer = await f.call('POST', '/sessions', { agentId: await agent(), initialMessage: 'Note it.', memoryStores: [{ storeId: notes.id }] });
    expect(writer.status, JSON.stringify(writer.body)).toBe(201);
    expect((await f.waitForRun(writer.body.latestRunId)).state).toBe('completed');
    expect(requestAt(first).instructions).toContain(mount);
    const answer = JSON.parse(toolOutputs(first + 1)[0]!);
    expect(answer.exitCode).toBe(0);
    expect(answer.memory.written).toMatchObject([{ path: '/todo/today.md', operation: 'created' }]);
    const [created] = await versions(notes.id);
    expect(created).toMatchObject({ operation: 'created', path: '/todo/today.md', content: 'ship the memory mount\n' });
    expect(created!.writtenBy).toEqual({ type: 'session', sessionId: writer.body.id, runId: writer.body.latestRunId });
    // The content is in the store, never in what the API and the worker logged.
    expect(f.t.logLines.join('\n')).not.toContain('ship the memory mount');

    // Another agent, read-only: it reads the file, and its write is refused by the mount.
    f.fakes.vendor_a
      .reply({ toolCalls: [{ name: 'bash', arguments: { command: `cat ${mount}todo/today.md; echo changed > ${mount}todo/today.md || echo refused` } }] })
      .reply({ text: 'Read it.' });
    const second = f.fakes.vendor_a.requests.length;
    const reader = await f.call('POST', '/sessions', {
      agentId: await agent(),
      initialMessage: 'What is on the list?',
      memoryStores: [{ storeId: notes.id, access: 'read_only' }],
    });
    expect((await f.waitForRun(reader.body.latestRunId)).state).toBe('completed');
    const read = JSON.parse(toolOutputs(second + 1)[0]!);
    expect(read.stdout).toContain('ship the memory mount');
    expect(read.stdout + read.stderr).toContain('refused');
    expect(read.memory).toBeUndefined();
    expect(await versions(notes.id)).toHaveLength(1);

    // The file tools reach the mounts too: `read` shows a memory, `write` makes a version.
    f.fakes.vendor_a
      .reply({ toolCalls: [{ name: 'read', arguments: { path: `${mount}todo/today.md` } }] })
      .reply({ toolCalls: [{ name: 'write', arguments: { path: `${mount}todo/tomorrow.md`, content: 'rest' } }] })
      .reply({ text: 'Planned.' });
    const third = f.fakes.vendor_a.requests.length;
    const planned = await f.call('POST', `/sessions/${writer.body.id}/runs`, { message: 'Plan tomorrow.' });
    expect((await f.waitForRun(planned.body.id)).state).toBe('completed');
    expect(JSON.parse(toolOutputs(third + 1).at(-1)!).content).toBe('ship the memory mount\n');
    expect(JSON.parse(toolOutputs(third + 2).at(-1)!).memory.written).toMatchObject([{ path: '/todo/tomorrow.md', operation: 'created' }]);
    const tomorrow = (await versions(notes.id)).find((version) => version.path === '/todo/tomorrow.md');
    expect(tomorrow).toMatchObject({ operation: 'created', content: 'rest' });
    await f.call('DELETE', `/memory-stores/${notes.id}/memories/${tomorrow!.memoryId}`);

    // Deleting the file deletes the memory (its versions stay).
    f.fakes.vendor_a.reply({ toolCalls: [{ name: 'bash', arguments: { command: `rm ${mount}todo/today.md` } }] }).reply({ text: 'Done.' });
    const again = await f.call('POST', `/sessions/${writer.body.id}/runs`, { message: 'It is shipped.' });
    expect((await f.waitForRun(again.body.id)).state).toBe('completed');
    expect((await versions(notes.id)).map((version) => `${version.operation} ${version.path}`)).toEqual([
      'deleted /todo/today.md',
      'deleted /todo/tomorrow.md',
      'created /todo/tomorrow.md',
      'created /todo/today.md',
    ]);
    expect((await f.call('GET', `/memory-stores/${notes.id}`)).body.memoryCount).toBe(0);
  }, 120_000);

  it('each command starts from the store as it is now, and a same-size change is seen', async () => {
    const notes = await store(`Kept ${randomUUID().slice(0, 4)}`);
    const mount = notes.mountPath;
    const agentId = await agent();
    f.fakes.vendor_a.reply({ toolCalls: [{ name: 'bash', arguments: { command: `printf a > ${mount}x.md` } }] }).reply({ text: 'One.' });
    const session = await f.call('POST', '/sessions', { agentId, initialMessage: 'Write a.', memoryStores: [{ storeId: notes.id }] });
    expect((await f.waitForRun(session.body.latestRunId)).state).toBe('completed');
    const [written] = (await f.call('GET', `/memory-stores/${notes.id}/memories`)).body.data;
    // Someone else changes it between the commands: the next command is shown their content.
    expect((await f.call('PATCH', `/memory-stores/${notes.id}/memories/${written.id}`, { content: 'c' })).status).toBe(200);
    f.fakes.vendor_a.reply({ toolCalls: [{ name: 'bash', arguments: { command: `cat ${mount}x.md; printf b > ${mount}x.md` } }] }).reply({ text: 'Two.' });
    const second = f.fakes.vendor_a.requests.length;
    const next = await f.call('POST', `/sessions/${session.body.id}/runs`, { message: 'Now b.' });
    expect((await f.waitForRun(next.body.id)).state).toBe('completed');
    expect(JSON.parse(toolOutputs(second + 1).at(-1)!).stdout).toBe('c');
    expect((await versions(notes.id)).map((version) => [version.operation, version.content])).toEqual([
      ['modified', 'b'],
      ['modified', 'c'],
      ['created', 'a'],
    ]);
  }, 120_000);

  it('two sessions writing one path at once: one version wins, the other command is told, nothing is overwritten', async () => {
    const shared = await store(`Shared ${randomUUID().slice(0, 4)}`);
    const memory = await f.call('POST', `/memory-stores/${shared.id}/memories`, { path: '/plan.md', content: 'v1\n' });
    expect(memory.status).toBe(201);
    // Both commands are shown v1, wait, then write their own line: the slower one's write-back is stale.
    const command = (who: string) => `sleep 3; echo '${who}' > ${shared.mountPath}plan.md`;
    f.fakes.vendor_a
      .reply({ toolCalls: [{ name: 'bash', arguments: { command: command('first') } }] })
      .reply({ toolCalls: [{ name: 'bash', arguments: { command: command('second') } }] })
      .reply({ text: 'Done.' })
      .reply({ text: 'Done.' });
    const first = f.fakes.vendor_a.requests.length;
    const agentId = await agent();
    const sessions = await Promise.all(
      ['a', 'b'].map(() => f.call('POST', '/sessions', { agentId, initialMessage: 'Update the plan.', memoryStores: [{ storeId: shared.id }] })),
    );
    for (const session of sessions) expect((await f.waitForRun(session.body.latestRunId)).state).toBe('completed');
    const all = await versions(shared.id);
    expect(all.map((version) => version.operation)).toEqual(['modified', 'created']);
    const winner = all[0]!.content as string;
    expect(['first\n', 'second\n']).toContain(winner);
    const outputs = f.fakes.vendor_a.requests
      .slice(first)
      .flatMap((_, index) => toolOutputs(first + index))
      .map((output) => JSON.parse(output));
    const told = outputs.filter((output) => output.memory?.notWritten);
    expect(told).toHaveLength(1);
    expect(told[0].memory.notWritten[0]).toContain('another session changed this memory during the command');
    expect((await f.call('GET', `/memory-stores/${shared.id}/memories/${memory.body.id}?view=full`)).body.content).toBe(winner);
  }, 120_000);
});
