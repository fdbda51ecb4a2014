import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runs, sessions } from '../../db/schema/index.ts';
import { addNumbersHandler, addNumbersTool } from '../support/platform-tools.ts';
import { connectLocalSandbox } from '../support/local-sandbox.ts';
import { startRunApp } from '../support/run-app.ts';
import { createTestAgent } from '../support/test-agents.ts';

/**
 * Delegation through the real worker: a coordinator's `delegate_agent` starts a child session
 * pinned to the delegate's version and runs it as its own run (a Temporal child workflow); the
 * child's answer is the tool result; `message_agent` continues a child session; cancelling the
 * coordinator cancels the child; a shared sandbox is shared. Running several at once:
 * parallel-delegation.test.ts.
 */
let f: Awaited<ReturnType<typeof startRunApp>>;

beforeAll(async () => {
  // The storage test uses moto on 127.0.0.1, which only a server allowing private networks may reach.
  f = await startRunApp({ platformTools: { add_numbers: addNumbersHandler }, env: { SVC_OUTBOUND_ALLOW_PRIVATE_NETWORK: 'true' } });
}, 120_000);
afterAll(() => f?.close());

const agent = (name: string, config: Record<string, unknown> = {}) => createTestAgent(f, name, config);

async function coordinatorWith(delegates: Array<{ key: string; versionId: string; maxParallel?: number }>, extra: Record<string, unknown> = {}) {
  return agent('coordinator', {
    delegates: delegates.map((delegate) => ({
      key: delegate.key,
      description: `The ${delegate.key}.`,
      agentVersionId: delegate.versionId,
      maxParallel: delegate.maxParallel ?? 1,
    })),
    ...extra,
  });
}

async function start(agentId: string, message: string) {
  const session = await f.call('POST', '/sessions', { agentId, initialMessage: message });
  expect(session.status, JSON.stringify(session.body)).toBe(201);
  return { sessionId: session.body.id as string, runId: session.body.latestRunId as string };
}

const callsOf = async (runId: string) => (await f.call('GET', `/tool-calls?runId=${runId}`)).body.data as Array<Record<string, any>>;
const childSessions = (coordinatorSessionId: string) => f.t.database.db.select().from(sessions).where(eq(sessions.parentSessionId, coordinatorSessionId));

describe('delegation', () => {
  it("delegate_agent runs a child session of the delegate's version and returns its answer; message_agent continues it", async () => {
    const researcher = await agent('researcher', {});
    const coordinator = await coordinatorWith([{ key: 'researcher', versionId: researcher.versionId }]);
    f.fakes.vendor_a
      .reply({ toolCalls: [{ name: 'delegate_agent', arguments: { delegateKey: 'researcher', message: 'Find the capital of Norway.' } }] })
      .reply({ text: 'Oslo.' })
      .reply({ toolCalls: [{ name: 'message_agent', arguments: { delegateKey: 'researcher', message: 'And of Sweden?' } }] })
      .reply({ text: 'Stockholm.' })
      .reply({ text: 'Oslo and Stockholm.' });
    const first = f.fakes.vendor_a.requests.length;
    const { sessionId, runId } = await start(coordinator.id, 'Capitals, please.');
    expect((await f.waitForRun(runId)).state).toBe('completed');

    const [child, ...others] = await childSessions(sessionId);
    expect(others).toEqual([]);
    expect(child).toMatchObject({ parentSessionId: sessionId, delegateKey: 'researcher', agentId: researcher.id, agentVersionId: researcher.versionId });
    const childRuns = await f.t.database.db.select().from(runs).where(eq(runs.sessionId, child!.id));
    expect(childRuns.map((row) => row.state)).toEqual(['completed', 'completed']);
    // The child got the message as its own user message, with its own instructions.
    const childRequest = f.fakes.vendor_a.requests[first + 1]!.body as { instructions: string; input: unknown };
    expect(childRequest.instructions).toContain('You are researcher.');
    expect(JSON.stringify(childRequest.input)).toContain('Find the capital of Norway.');
    expect(JSON.stringify(childRequest.input)).not.toContain('Capitals, please.');

    const calls = await callsOf(runId);
    expect(calls.map((call) => [call.toolName, call.status, call.safeResult?.value?.answer])).toEqual([
      ['delegate_agent', 'succeeded', 'Oslo.'],
      ['message_agent', 'succeeded', 'Stockholm.'],
    ]);
    expect(calls[0]!.safeResult.value).toMatchObject({
      delegateKey: 'researcher',
      childSessionId: child!.id,
      childRunId: childRuns[0]!.id,
      state: 'completed',
    });
    expect(JSON.stringify(f.fakes.vendor_a.requests.at(-1)!.body)).toContain('Stockholm.');
    const events = (await f.call('GET', `/sessions/${sessionId}`)).body.debug.productEvents.filter((event: { kind: string }) =>
      event.kind.startsWith('delegation.'),
    );
    expect(events.map((event: { kind: string }) => event.kind)).toEqual([
      'delegation.run_queued',
      'delegation.run_settled',
      'delegation.run_queued',
      'delegation.run_settled',
    ]);
    expect(JSON.stringify(events)).not.toContain('capital');
  }, 90_000);

  it('a second delegate_agent starts another child of the key; message_agent before any, or naming none of several, is refused', async () => {
    const helper = await agent('helper', {});
    const coordinator = await coordinatorWith([{ key: 'helper', versionId: helper.versionId }]);
    f.fakes.vendor_a
      .reply({ toolCalls: [{ name: 'message_agent', arguments: { delegateKey: 'helper', message: 'Hi?' } }] })
      .reply({ toolCalls: [{ name: 'delegate_agent', arguments: { delegateKey: 'helper', message: 'Hello.' } }] })
      .reply({ text: 'Hello back.' })
      .reply({ toolCalls: [{ name: 'delegate_agent', arguments: { delegateKey: 'helper', message: 'Again.' } }] })
      .reply({ text: 'Again back.' })
      .reply({ toolCalls: [{ name: 'message_agent', arguments: { delegateKey: 'helper', message: 'Which of you?' } }] });
    const { sessionId, runId } = await start(coordinator.id, 'Work with the helper.');
    // The last follow-up names the second child, from its delegate_agent answer.
    const second = await (async () => {
      for (let i = 0; i < 300; i++) {
        const calls = await callsOf(runId);
        const answer = calls.filter((call) => call.toolName === 'delegate_agent' && call.status === 'succeeded')[1];
        if (answer) return answer.safeResult.value.childSessionId as string;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error('the second child never answered');
    })();
    f.fakes.vendor_a
      .reply({ toolCalls: [{ name: 'message_agent', arguments: { delegateKey: 'helper', message: 'You, then.', childSessionId: second } }] })
      .reply({ text: 'Yes, me.' })
      .reply({ text: 'Done.' });
    expect((await f.waitForRun(runId)).state).toBe('completed');
    const calls = await callsOf(runId);
    expect(calls.map((call) => [call.toolName, call.status, call.failure?.reason ?? null])).toEqual([
      ['message_agent', 'failed', 'refused'],
      ['delegate_agent', 'succeeded', null],
      ['delegate_agent', 'succeeded', null],
      ['message_agent', 'failed', 'refused'],
      ['message_agent', 'succeeded', null],
    ]);
    expect(calls[3]!.failure.message).toMatch(/has 2 sessions with this coordinator; name one with childSessionId/);
    expect(calls[4]!.safeResult.value).toMatchObject({ childSessionId: second, answer: 'Yes, me.' });
    const children = await childSessions(sessionId);
    expect(children).toHaveLength(2);
    expect(children.map((child) => child.delegateKey)).toEqual(['helper', 'helper']);
  }, 90_000);

  it('cancelling the coordinator run cancels the child run', async () => {
    const slow = await agent('slow helper', {});
    const coordinator = await coordinatorWith([{ key: 'slow', versionId: slow.versionId }]);
    f.fakes.vendor_a
      .reply({ toolCalls: [{ name: 'delegate_agent', arguments: { delegateKey: 'slow', message: 'Take your time.' } }] })
      .reply({ text: 'too late', delayMs: 30_000 });
    const { sessionId, runId } = await start(coordinator.id, 'Go slowly.');
    const child = await (async () => {
      for (let i = 0; i < 200; i++) {
        const [found] = await childSessions(sessionId);
        if (found?.latestRunId) {
          const [row] = await f.t.database.db.select().from(runs).where(eq(runs.id, found.latestRunId));
          if (row?.state === 'running') return row;
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error('the child run never started');
    })();
    expect((await f.call('POST', `/runs/${runId}/cancel`)).status).toBe(202);
    expect((await f.waitForRun(runId)).state).toBe('cancelled');
    expect((await f.waitForRun(child.id)).state).toBe('cancelled');
  }, 90_000);

  it("an approval wait in a child pauses the coordinator's execution deadline", async () => {
    const EXECUTION_LIMIT_MS = 12_000;
    const gated = await agent('gated helper', { tools: [{ ...addNumbersTool, approval: 'always' }] });
    // The execution limit is the subject: 12 s, so that the coordinator's own steps fit in it on a
    // slow host (they took over 2 s beside two other files), and the wait below outlasts it.
    const coordinator = await coordinatorWith([{ key: 'gated', versionId: gated.versionId }], { limits: { maxTurns: 6, timeoutMs: EXECUTION_LIMIT_MS } });
    f.fakes.vendor_a
      .reply({ toolCalls: [{ name: 'delegate_agent', arguments: { delegateKey: 'gated', message: 'Add after approval.' } }] })
      .reply({ toolCalls: [{ name: 'add_numbers', arguments: { a: 1, b: 2 } }] })
      .reply({ text: 'Three.' })
      .reply({ text: 'The helper said three.' });
    const { sessionId, runId } = await start(coordinator.id, 'Get it added.');
    const [child] = await (async () => {
      for (let i = 0; i < 200; i++) {
        const found = await childSessions(sessionId);
        if (found[0]?.latestRunId) {
          const [row] = await f.t.database.db.select().from(runs).where(eq(runs.id, found[0].latestRunId));
          if (row?.state === 'waiting_for_approval') return [row];
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error('the child never waited for an approval');
    })();
    // More than the coordinator's whole limit passes while the child waits.
    await new Promise((resolve) => setTimeout(resolve, EXECUTION_LIMIT_MS + 3_000));
    expect((await f.call('GET', `/runs/${runId}`)).body.state).toBe('running');
    const approvals = await f.call('GET', `/approvals?runId=${child!.id}`);
    expect((await f.call('POST', `/approvals/${approvals.body.data[0].id}/decision`, { status: 'approved' })).status).toBe(200);
    expect((await f.waitForRun(runId)).state).toBe('completed');
  }, 90_000);

  it("a child shares the coordinator's sandbox workspace", async () => {
    const snapshotId = await connectLocalSandbox(f.call, { key: 'shared', storageKey: 'delegation-files' });
    const sandbox = { enabled: true, provider: 'shared', snapshotId, network: 'none', capabilities: ['filesystem_read', 'filesystem_write', 'shell'] };
    const writer = await agent('writer', { sandbox });
    const coordinator = await coordinatorWith([{ key: 'writer', versionId: writer.versionId }], { sandbox });
    f.fakes.vendor_a
      .reply({ toolCalls: [{ name: 'delegate_agent', arguments: { delegateKey: 'writer', message: 'Write the report.' } }] })
      .reply({ toolCalls: [{ name: 'write', arguments: { path: 'report.md', content: '# Report by the child\n' } }] })
      .reply({ text: 'Written to report.md.' })
      .reply({ toolCalls: [{ name: 'bash', arguments: { command: 'cat report.md' } }] })
      .reply({ text: 'The report is there.' });
    const { runId } = await start(coordinator.id, 'Get a report written.');
    expect((await f.waitForRun(runId, undefined, 90_000)).state).toBe('completed');
    const bash = (await callsOf(runId)).find((call) => call.toolName === 'bash')!;
    expect(JSON.stringify(bash.safeResult)).toContain('# Report by the child');
  }, 120_000);

  it('children of a fan-out that share the workspace run their commands one at a time', async () => {
    const snapshotId = await connectLocalSandbox(f.call, { key: 'shared-fan-out', storageKey: 'delegation-fan-out-files' });
    const sandbox = { enabled: true, provider: 'shared-fan-out', snapshotId, network: 'none', capabilities: ['filesystem_read', 'filesystem_write', 'shell'] };
    const worker = await agent('worker', { sandbox });
    const coordinator = await coordinatorWith([{ key: 'worker', versionId: worker.versionId, maxParallel: 2 }], { sandbox });
    // Each command holds a lock directory for half a second: a second command at the same time would find it.
    const command = 'if mkdir lock.d 2>/dev/null; then sleep 0.5; rmdir lock.d; echo alone; else echo overlap; fi';
    f.fakes.vendor_a
      .reply({
        toolCalls: [
          { name: 'delegate_agent', arguments: { delegateKey: 'worker', message: 'Part one.' } },
          { name: 'delegate_agent', arguments: { delegateKey: 'worker', message: 'Part two.' } },
        ],
      })
      .reply({ toolCalls: [{ name: 'bash', arguments: { command } }] })
      .reply({ toolCalls: [{ name: 'bash', arguments: { command } }] })
      .reply({ text: 'Done.' })
      .reply({ text: 'Done.' })
      .reply({ text: 'Both done.' });
    const { runId } = await start(coordinator.id, 'Two parts in one workspace.');
    expect((await f.waitForRun(runId, undefined, 90_000)).state).toBe('completed');
    const childRunIds = (await callsOf(runId)).map((call) => call.safeResult.value.childRunId as string);
    const commands = (await Promise.all(childRunIds.map(callsOf))).flat().filter((call) => call.toolName === 'bash');
    expect(commands.map((call) => call.safeResult.value.stdout)).toEqual(['alone\n', 'alone\n']);
    // The two children were running at once: each asked for its command before the other's ended...
    const asked = commands.map((call) => [new Date(call.createdAt).getTime(), new Date(call.completedAt).getTime()] as const).sort((a, b) => a[0] - b[0]);
    expect(asked[1]![0]).toBeLessThan(asked[0]![1]);
    // ...and the commands themselves ran one after the other in the shared workspace.
    const childSessionIds = (await callsOf(runId)).map((call) => call.safeResult.value.childSessionId as string);
    const ran = (
      await Promise.all(childSessionIds.map(async (id) => (await f.call('GET', `/sessions/${id}`)).body.debug.sandboxCommands as Array<Record<string, string>>))
    )
      .flat()
      .map((entry) => [new Date(entry.startedAt!).getTime(), new Date(entry.completedAt!).getTime()] as const)
      .sort((a, b) => a[0] - b[0]);
    expect(ran).toHaveLength(2);
    expect(ran[0]![1]).toBeLessThanOrEqual(ran[1]![0]);
  }, 120_000);
});
