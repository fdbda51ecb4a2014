import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_KEYS } from '../fixtures/model-vendors/catalog-server.ts';
import { serveApp, type ServedApp } from '../support/http-server.ts';
import { ORDER, tool } from '../support/tool-call-app.ts';
import { startRunApp } from '../support/run-app.ts';

/**
 * The `svc` command line (client/bin/svc.js) as a child process against the real service over
 * HTTP (issue 17 point 3): log in (the key stored with mode 0600, never printed), create and
 * update an agent from a YAML file, start a session and stream it to completion, and a refusal
 * printed with its request id and a non-zero exit code.
 */
const CLI = path.resolve('client/bin/svc.js');
let f: Awaited<ReturnType<typeof startRunApp>>;
let served: ServedApp;
let configDir: string;
let work: string;

beforeAll(async () => {
  f = await startRunApp({ env: { SVC_RATE_LIMIT_API_KEY_PER_SECOND: '0', SVC_RATE_LIMIT_PROJECT_PER_SECOND: '0' } });
  served = await serveApp(f.t.app.fetch);
  configDir = await mkdtemp(path.join(tmpdir(), 'svc-cli-config-'));
  work = await mkdtemp(path.join(tmpdir(), 'svc-cli-work-'));
}, 120_000);
afterAll(async () => {
  await served?.close();
  await f?.close();
});

/** A long-running command (a followed session, a tail): its output so far, its exit, and a way to stop it. */
function svcSpawn(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, SVC_CONFIG_DIR: configDir, ...env } });
  const output = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk) => (output.stdout += chunk));
  child.stderr.on('data', (chunk) => (output.stderr += chunk));
  const exited = new Promise<number>((resolve) => child.on('exit', (code, signal) => resolve(code ?? (signal ? 128 : 1))));
  return { output, exited, stop: () => child.kill('SIGTERM') };
}

async function eventually<T>(read: () => Promise<T | undefined>, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

function svc(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env: { ...process.env, SVC_CONFIG_DIR: configDir, ...env }, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

describe('svc, the command line', () => {
  it('logs in with an API key, stores it with mode 0600 and never prints it', async () => {
    const before = await svc(['agents', 'list']);
    expect(before.code).toBe(4);
    expect(before.stderr).toContain('Not logged in');
    const login = await svc(['login', '--url', served.baseUrl], { SVC_API_KEY: f.apiKey });
    expect(login.code, login.stderr).toBe(0);
    expect(login.stdout).toContain('Logged in to');
    expect(login.stdout + login.stderr).not.toContain(f.apiKey);
    const file = path.join(configDir, 'credentials.json');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(file, 'utf8'))).toMatchObject({ baseUrl: served.baseUrl, apiKey: f.apiKey, projectId: f.projectId });
    const whoami = await svc(['whoami', '--json']);
    expect(JSON.parse(whoami.stdout).project.id).toBe(f.projectId);
  });

  it('creates an agent from a YAML file, then publishes its changed config as a new version', async () => {
    const file = path.join(work, 'agent.yaml');
    const yaml = (prompt: string) =>
      `name: Support desk\nkey: support-desk\nconfig:\n  systemPrompt: ${prompt}\n  modelPreset: fast\n  limits:\n    maxTurns: 4\n`;
    await writeFile(file, yaml('You help customers with their orders, politely.'));
    const created = await svc(['agents', 'apply', file]);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/Created agent support-desk \(.+\), version 1/);
    const unchanged = await svc(['agents', 'apply', file]);
    expect(unchanged.stdout).toContain('Unchanged: support-desk is already version 1');
    await writeFile(file, yaml('You help customers with their orders and refunds, politely.'));
    const published = await svc(['agents', 'apply', file]);
    expect(published.stdout).toContain('Published version 2 of support-desk');
    const list = await svc(['agents', 'list', '--json']);
    expect(JSON.parse(list.stdout).find((agent: { key: string }) => agent.key === 'support-desk')).toMatchObject({ version: 2 });
  });

  it('starts a session and streams its run to completion', async () => {
    f.fakes.vendor_a.reply({ text: 'Your order ships tomorrow.', delayMs: 300 });
    const run = await svc(['sessions', 'start', '--agent', 'support-desk', '--message', 'Where is my order?', '--follow']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^session [0-9a-f-]{36}, run [0-9a-f-]{36}$/m);
    expect(run.stdout).toMatch(/run\.\w+/); // the progress lines of the run's events
    expect(run.stdout).toContain('run completed');
    expect(run.stdout).toContain('Your order ships tomorrow.');
  });

  it('prints the answer as the model writes it, once', async () => {
    const answer = 'Your parcel left the warehouse this morning and should reach you by Friday afternoon.';
    f.fakes.vendor_a.reply({ text: answer, chunkSize: 4, chunkDelayMs: 60 });
    const followed = svcSpawn(['sessions', 'start', '--agent', 'support-desk', '--message', 'Where is my parcel?', '--follow']);
    // Part of the answer is on the terminal while the model is still writing it.
    const partial = await eventually(
      async () => {
        const at = followed.output.stdout.indexOf('Your parcel');
        if (at === -1) return undefined;
        const shown = followed.output.stdout.slice(at).split('\n')[0]!;
        return shown.length < answer.length ? shown : undefined;
      },
      'part of the answer',
      20_000,
    );
    expect(answer.startsWith(partial)).toBe(true);
    expect(await followed.exited, followed.output.stderr).toBe(0);
    const out = followed.output.stdout;
    expect(out).toContain(answer);
    expect(out.split(answer).length - 1).toBe(1);
    expect(out).toContain('run completed');
  });

  it('approves a gated caller tool and answers it while a followed session waits, with the progress shown', async () => {
    const file = path.join(work, 'refunds.json');
    const refund = tool('refund_order', 'caller', 'always', 'Refunds an order.');
    await writeFile(
      file,
      JSON.stringify({
        name: 'Refunds',
        key: 'refunds',
        config: { systemPrompt: 'You refund orders when asked, carefully.', modelPreset: 'fast', limits: { maxTurns: 4 }, tools: [refund] },
      }),
    );
    expect((await svc(['agents', 'apply', file])).code).toBe(0);
    f.fakes.vendor_a.reply({ toolCalls: [{ name: 'refund_order', arguments: { orderId: ORDER } }] }).reply({ text: 'Refunded order A1.' });
    const followed = svcSpawn(['sessions', 'start', '--agent', 'refunds', '--message', 'Refund A1, please.', '--follow']);

    type Pending = { toolCalls: Array<{ id: string; status: string }>; approvals: Array<{ id: string; status: string }> };
    const pending = async () => JSON.parse((await svc(['tools', 'pending', '--json'])).stdout) as Pending;
    const approval = await eventually(async () => (await pending()).approvals.find((entry) => entry.status === 'pending'), 'the approval');
    const listed = await svc(['tools', 'pending']);
    expect(listed.stdout).toContain(`approval  ${approval.id}  refund_order`);
    const decided = await svc(['approvals', 'decide', approval.id, 'approve', '--note', 'Within policy']);
    expect(decided.code, decided.stderr).toBe(0);
    expect(decided.stdout).toContain(`Approval ${approval.id} approved`);

    const call = await eventually(async () => (await pending()).toolCalls.find((entry) => entry.status === 'pending'), 'the tool call');
    const answered = await svc(['tools', 'answer', call.id, '--value', '{"total":12.5}']);
    expect(answered.code, answered.stderr).toBe(0);
    expect(answered.stdout).toContain(`Answered ${call.id}`);
    expect((await svc(['tools', 'answer', call.id, '--value', '{"total":12.5}'])).code).toBe(1); // answered already

    expect(await followed.exited, followed.output.stderr).toBe(0);
    const out = followed.output.stdout;
    // Each event line, with the command that resolves the waiting ones, then the summary line.
    expect(out).toContain(`approval.requested  (svc approvals decide ${approval.id} approve|deny)`);
    expect(out).toContain(`tool_call.pending  refund_order  (svc tools answer ${call.id} --value <json>)`);
    expect(out).toMatch(/^run completed · 2 model calls · 1 tool call · 1 approval · \d+\.\d s$/m);
    expect(out).toContain('Refunded order A1.');
  });

  it('sends a turn while a run is busy: refused by default, queued with --if-busy enqueue, withdrawn, then followed until it runs', async () => {
    f.fakes.vendor_a.reply({ toolCalls: [{ name: 'refund_order', arguments: { orderId: ORDER } }] });
    const started = await svc(['sessions', 'start', '--agent', 'refunds', '--message', 'Refund A1, please.']);
    expect(started.code, started.stderr).toBe(0);
    const [, sessionId, runId] = /^session ([0-9a-f-]{36}), run ([0-9a-f-]{36})$/m.exec(started.stdout)!;
    await f.waitForRun(runId!, (run) => run.state === 'waiting_for_approval');

    // The spec's default: refused, with how to send it anyway.
    const refused = await svc(['sessions', 'send', sessionId!, '--message', 'And B2?']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^error: .+ \(conflict, request [0-9a-f-]{36}\)$/m);
    expect(refused.stderr).toContain(`run ${runId} is waiting_for_approval: send with --if-busy enqueue`);
    const wrong = await svc(['sessions', 'send', sessionId!, '--message', 'And B2?', '--if-busy', 'later']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('--if-busy is enqueue, interrupt or reject (not "later")');

    const queued = await svc(['sessions', 'send', sessionId!, '--message', 'And B2?', '--if-busy', 'enqueue']);
    expect(queued.code, queued.stderr).toBe(0);
    const [, b2] = new RegExp(`^session ${sessionId}, pending turn ([0-9a-f-]{36}) at position 1 \\(enqueue\\): it runs after the active run$`, 'm').exec(
      queued.stdout,
    )!;
    expect(queued.stdout).toContain(`withdraw it with: svc sessions withdraw ${sessionId} ${b2}`);
    const second = await svc(['sessions', 'send', sessionId!, '--message', 'And C3?', '--if-busy', 'enqueue', '--json']);
    const c3 = JSON.parse(second.stdout) as { queued: true; pendingTurn: { id: string; position: number; ifBusy: string; message: string } };
    expect(c3).toMatchObject({ queued: true, pendingTurn: { position: 2, ifBusy: 'enqueue', message: 'And C3?' } });
    const withdrawn = await svc(['sessions', 'withdraw', sessionId!, c3.pendingTurn.id]);
    expect(withdrawn.code, withdrawn.stderr).toBe(0);
    expect(withdrawn.stdout).toContain(`Withdrew pending turn ${c3.pendingTurn.id}`);
    expect((await svc(['sessions', 'withdraw', sessionId!, c3.pendingTurn.id])).code).toBe(0); // the same answer again

    // Followed: shown as pending, then followed as the run it becomes (after B2's).
    f.fakes.vendor_a.reply({ text: 'Refunded A1.' }).reply({ text: 'B2 ships on Monday.' }).reply({ text: 'D4 ships on Tuesday.' });
    const followed = svcSpawn(['sessions', 'send', sessionId!, '--message', 'And D4?', '--if-busy', 'enqueue', '--follow']);
    await eventually(async () => (followed.output.stdout.includes('waiting for the active run to settle') ? true : undefined), 'the pending turn');
    expect(followed.output.stdout).toMatch(
      /pending turn [0-9a-f-]{36} at position 2 \(enqueue\): it runs after the active run and the 1 pending turn before it/,
    );
    const pending = JSON.parse((await svc(['tools', 'pending', '--json'])).stdout) as { approvals: Array<{ id: string; runId: string }> };
    expect((await svc(['approvals', 'decide', pending.approvals.find((approval) => approval.runId === runId)!.id, 'approve'])).code).toBe(0);
    const call = await eventually(
      async () =>
        (JSON.parse((await svc(['tools', 'pending', '--json'])).stdout) as { toolCalls: Array<{ id: string; runId: string; status: string }> }).toolCalls.find(
          (entry) => entry.runId === runId && entry.status === 'pending',
        ),
      'the tool call',
    );
    expect((await svc(['tools', 'answer', call.id, '--value', '{"total":12.5}'])).code).toBe(0);

    expect(await followed.exited, followed.output.stderr).toBe(0);
    const out = followed.output.stdout;
    const [, d4Run] = new RegExp(`^session ${sessionId}, run ([0-9a-f-]{36})$`, 'm').exec(out)!;
    expect(out).toContain('run completed');
    expect(out).toContain('D4 ships on Tuesday.');
    expect(out).not.toContain('B2 ships on Monday.'); // the run before it is not the one followed
    const detail = (await f.call('GET', `/sessions/${sessionId}`)).body;
    expect(detail.runs.map((run: { state: string; inputPublic: { message: string } }) => [run.state, run.inputPublic.message])).toEqual([
      ['completed', 'Refund A1, please.'],
      ['completed', 'And B2?'],
      ['completed', 'And D4?'],
    ]);
    expect(detail.runs[2].id).toBe(d4Run);
    expect(detail.pendingTurns).toEqual([]);
  });

  it('forks a session from a settled run, idle or followed, and starts an idle session', async () => {
    // A session of support-desk (on its version 2), forked onto version 1.
    const supportDesk = (await f.call('GET', '/agents')).body.data.find((agent: { key: string }) => agent.key === 'support-desk');
    const source = (await f.call('GET', '/sessions')).body.data.find(
      (session: { agentId: string; status: string }) => session.agentId === supportDesk.id && session.status === 'completed',
    );
    const detail = (await f.call('GET', `/sessions/${source.id}`)).body;
    const fromRun = detail.runs[0];
    const v1 = (await f.call('GET', `/agents/${supportDesk.id}/versions`)).body.data.find((version: { version: number }) => version.version === 1);

    const idle = await svc(['sessions', 'fork', source.id, '--from-run', fromRun.id, '--agent-version', v1.id, '--title', 'Tried on v1']);
    expect(idle.code, idle.stderr).toBe(0);
    const [, forkId] = new RegExp(`^session ([0-9a-f-]{36}), forked from session ${source.id} at run ${fromRun.id}$`, 'm').exec(idle.stdout)!;
    expect(idle.stdout).toContain(`agent version ${v1.id}, workspace empty`);
    expect(idle.stdout).toContain(`idle (send its first message: svc sessions send ${forkId} --message <text>)`);
    expect((await f.call('GET', `/sessions/${forkId}`)).body).toMatchObject({
      status: 'idle',
      title: 'Tried on v1',
      agentVersionId: v1.id,
      forkedFrom: { sessionId: source.id, runId: fromRun.id },
      runs: [],
    });

    f.fakes.vendor_a.reply({ text: 'Forked and answered.' });
    const followed = await svc(['sessions', 'fork', source.id, '--from-run', fromRun.id, '--message', 'And now?', '--follow']);
    expect(followed.code, followed.stderr).toBe(0);
    expect(followed.stdout).toMatch(new RegExp(`^session [0-9a-f-]{36}, forked from session ${source.id} at run ${fromRun.id}$`, 'm'));
    expect(followed.stdout).toMatch(/^session [0-9a-f-]{36}, run [0-9a-f-]{36}$/m);
    expect(followed.stdout).toContain('run completed');
    expect(followed.stdout).toContain('Forked and answered.');
    const json = JSON.parse((await svc(['sessions', 'fork', source.id, '--from-run', fromRun.id, '--json'])).stdout);
    expect(json).toMatchObject({ forkedFrom: { sessionId: source.id, runId: fromRun.id }, workspace: 'empty', run: null, status: 'idle' });
    expect((await f.call('GET', `/sessions/${source.id}`)).body.runs).toHaveLength(detail.runs.length); // the source is only read

    expect((await svc(['sessions', 'fork', source.id])).stderr).toContain('Missing --from-run');
    const noMessage = await svc(['sessions', 'fork', source.id, '--from-run', fromRun.id, '--follow']);
    expect(noMessage.code).toBe(2);
    expect(noMessage.stderr).toContain('--follow needs --message');

    // A session opened before the first message: idle, until `send` starts its first run.
    const opened = await svc(['sessions', 'start', '--agent', 'support-desk', '--title', 'Opened early']);
    expect(opened.code, opened.stderr).toBe(0);
    const [, openedId] = /^session ([0-9a-f-]{36}), idle \(send its first message: svc sessions send \1 --message <text>\)$/m.exec(opened.stdout)!;
    expect((await svc(['sessions', 'list'])).stdout).toMatch(new RegExp(`^${openedId}  idle  `, 'm'));
    f.fakes.vendor_a.reply({ text: 'First answer.' });
    const first = await svc(['sessions', 'send', openedId!, '--message', 'Hello?', '--follow']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('First answer.');
  });

  it('tails the event feed from the start until stopped', async () => {
    const tail = svcSpawn(['events', 'tail', '--from', 'start']);
    await eventually(async () => (tail.output.stdout.includes('run.completed') ? true : undefined), 'the feed');
    tail.stop();
    await tail.exited;
    const lines = tail.output.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^1  \S+Z  [a-z_]+\.[a-z_.]+  [a-z_]+\/[0-9a-f-]{36}$/);
    const positions = lines.map((line) => Number(line.split('  ')[0]));
    expect(positions).toEqual(positions.map((_, index) => index + 1)); // from the start, gap-free, in order
  });

  it('downloads the configuration backup and restores it into another installation, credentials supplied', async () => {
    const backupFile = path.join(work, 'backup.json');
    const downloaded = await svc(['backup', 'download', '--out', backupFile]);
    expect(downloaded.code, downloaded.stderr).toBe(0);
    const backup = JSON.parse(await readFile(backupFile, 'utf8'));
    expect(backup.format).toBe('svc.organization-configuration');
    expect(await readFile(backupFile, 'utf8')).not.toContain(FAKE_KEYS.vendor_a); // never a secret

    const target = await startRunApp({ seed: false, runtime: 'later' });
    const targetServed = await serveApp(target.t.app.fetch);
    const targetConfig = await mkdtemp(path.join(tmpdir(), 'svc-cli-target-'));
    const onTarget = (args: string[]) => svc(args, { SVC_CONFIG_DIR: targetConfig });
    try {
      expect((await svc(['login', '--url', targetServed.baseUrl], { SVC_CONFIG_DIR: targetConfig, SVC_API_KEY: target.apiKey })).code).toBe(0);
      const preview = await onTarget(['backup', 'restore', backupFile, '--preview']);
      expect(preview.code, preview.stderr).toBe(0);
      expect(preview.stdout).toMatch(/^project default \(.+\): fill empty project$/m);
      expect(preview.stdout).toMatch(/^needs --credentials: modelProviders\.\S+ \(OpenAI, string\)$/m);
      const { requiredCredentials } = JSON.parse((await onTarget(['backup', 'restore', backupFile, '--preview', '--json'])).stdout) as {
        requiredCredentials: Array<{ kind: string; id: string }>;
      };
      const credentials: Record<string, Record<string, string>> = {};
      for (const needed of requiredCredentials) (credentials[needed.kind] ??= {})[needed.id] = FAKE_KEYS.vendor_a;
      const credentialsFile = path.join(work, 'credentials.json');
      await writeFile(credentialsFile, JSON.stringify(credentials));

      const missing = await onTarget(['backup', 'restore', backupFile]);
      expect(missing.code).toBe(1); // the secrets are required
      expect(missing.stderr).toMatch(/request [0-9a-f-]{36}/);
      const restored = await onTarget(['backup', 'restore', backupFile, '--credentials', credentialsFile]);
      expect(restored.code, restored.stderr).toBe(0);
      expect(restored.stdout).toMatch(/^Restored project default \([0-9a-f-]{36}\): fill empty project$/m);
      const agents = JSON.parse((await onTarget(['agents', 'list', '--json'])).stdout) as Array<{ key: string }>;
      expect(agents.map((agent) => agent.key)).toEqual(expect.arrayContaining(['support-desk', 'refunds']));
    } finally {
      await targetServed.close();
      await target.close();
    }
  });

  it('reaches any route with svc request and prints its JSON', async () => {
    const presets = await svc(['request', 'GET', '/model-presets']);
    expect(presets.code, presets.stderr).toBe(0);
    expect(JSON.parse(presets.stdout).data.map((preset: { key: string }) => preset.key)).toContain('fast');
    const context = await svc(['request', 'GET', '/v1/context']);
    expect(JSON.parse(context.stdout).project.id).toBe(f.projectId);
    const created = await svc(['request', 'POST', '/skill-drafts', '--data', '{}']);
    expect(JSON.parse(created.stdout)).toHaveProperty('id');
  });

  it('prints a refusal with its request id and exits non-zero', async () => {
    const file = path.join(work, 'broken.json');
    await writeFile(
      file,
      JSON.stringify({ name: 'Broken', config: { systemPrompt: 'You help customers with their orders.', modelPreset: 'fast', limits: { maxTurns: 0 } } }),
    );
    const refused = await svc(['agents', 'apply', file]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^error: .+ \(bad_request, request [0-9a-f-]{36}\)$/m);
    const unknown = await svc(['agents', 'fly']);
    expect(unknown.code).toBe(2);
  });
  it('starts a session with a budget, fails the turn past it with budget_exceeded, raises it and continues; shows tokens and cost', async () => {
    // The seeded preset priced like an operator would (2 / 10 per million input / output tokens).
    const fast = JSON.parse((await svc(['request', 'GET', '/model-presets'])).stdout).data.find((preset: { key: string }) => preset.key === 'fast');
    expect((await svc(['request', 'PATCH', `/model-presets/${fast.id}`, '--data', '{"prices":{"input":2,"output":10}}'])).code).toBe(0);
    // 120 tokens a call: the first turn spends the 100-token budget, the second is refused before any model call.
    f.fakes.vendor_a.reply({ text: 'Within budget.', usage: { inputTokens: 80, outputTokens: 40 } });
    const started = await svc(['sessions', 'start', '--agent', 'support-desk', '--message', 'First?', '--max-tokens', '100', '--follow']);
    expect(started.code, started.stderr).toBe(0);
    const [, sessionId, firstRun] = /^session ([0-9a-f-]{36}), run ([0-9a-f-]{36})$/m.exec(started.stdout)!;
    const spent = await svc(['runs', 'get', firstRun!]);
    expect(spent.stdout).toContain('80 in · 40 out · cost 0.00056'); // 80 × 2 + 40 × 10 per million

    const refused = await svc(['sessions', 'send', sessionId!, '--message', 'Second?', '--follow']);
    expect(refused.code).toBe(3); // the followed run failed
    const [, refusedRun] = /^session [0-9a-f-]{36}, run ([0-9a-f-]{36})$/m.exec(refused.stdout)!;
    const failed = await svc(['runs', 'get', refusedRun!]);
    expect(failed.stdout).toContain(`${refusedRun}  failed`);
    expect(failed.stdout).toContain("budget_exceeded: The session's budget of 100 tokens is spent (120 used); raise it to continue.");

    expect((await svc(['sessions', 'budget', sessionId!])).code).toBe(2); // nothing to set
    const raised = await svc(['sessions', 'budget', sessionId!, '--max-tokens', '10000', '--max-cost', '0.5']);
    expect(raised.code, raised.stderr).toBe(0);
    expect(raised.stdout).toContain(`session ${sessionId}: budget at most 0.5 cost, at most 10,000 tokens (spent so far: 80 in · 40 out · cost 0.00056)`);
    f.fakes.vendor_a.reply({ text: 'Raised and answered.', usage: { inputTokens: 80, outputTokens: 40 } });
    const continued = await svc(['sessions', 'send', sessionId!, '--message', 'Second, again?', '--follow']);
    expect(continued.code, continued.stderr).toBe(0);
    expect(continued.stdout).toContain('Raised and answered.');
    expect(JSON.parse((await svc(['sessions', 'budget', sessionId!, '--no-budget', '--json'])).stdout).budget).toBeNull();
    expect((await svc(['sessions', 'start', '--agent', 'support-desk', '--max-tokens', 'many'])).stderr).toContain(
      '--max-tokens is a whole number of at least 0 (not "many")',
    );
  });

  it('prints the usage ledger by day and by agent, with the totals', async () => {
    const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
    // Yesterday through tomorrow: today's runs fall inside whatever the clock's day is.
    const range = ['--from', day(-1), '--to', day(1)];
    const json = JSON.parse((await svc(['usage', ...range, '--json'])).stdout) as {
      groupBy: string;
      currency: string;
      totals: { runs: number; cost: number };
      groups: Array<{ key: string; runs: number; cost: number }>;
    };
    expect(json.groupBy).toBe('day');
    expect(json.groups.map((group) => group.key)).toEqual([day(-1), day(0), day(1)]);
    expect(json.totals.runs).toBeGreaterThan(0);
    expect(json.totals.cost).toBeCloseTo(0.00112, 9); // the two priced calls above
    expect(json.groups.reduce((sum, group) => sum + group.runs, 0)).toBe(json.totals.runs);

    const table = await svc(['usage', ...range]);
    expect(table.code, table.stderr).toBe(0);
    const lines = table.stdout.trim().split('\n');
    expect(lines[0]).toBe(`usage ${day(-1)} to ${day(1)}, by day`);
    expect(lines[1]).toMatch(new RegExp(`^day\\s+runs\\s+model calls\\s+tokens in\\s+tokens out\\s+cache read\\s+cache write\\s+cost \\(${json.currency}\\)$`));
    expect(lines.at(-1)).toMatch(new RegExp(`^total\\s+${json.totals.runs}\\s+.*\\s0\\.00112$`));
    // By agent: the agent's key, not its id.
    const byAgent = await svc(['usage', ...range, '--group-by', 'agent']);
    expect(byAgent.stdout).toMatch(/^support-desk\s+\d+\s+\d+\s+[\d,]+\s+[\d,]+\s+0\s+0\s+0\.00112$/m);

    const wrong = await svc(['usage', '--group-by', 'week']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('--group-by is day, agent, preset or apiKey (not "week")');
    const inverted = await svc(['usage', '--from', day(1), '--to', day(-1)]);
    expect(inverted.code).toBe(1);
    expect(inverted.stderr).toMatch(/^error: from must not be after to \(bad_request, request [0-9a-f-]{36}\)$/m);
  });

  it('creates a schedule, shows its next firings, triggers it, pauses and unpauses it, changes and deletes it', async () => {
    const missing = await svc(['schedules', 'create', '--agent', 'support-desk', '--every', '1h']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('Missing --message');
    expect((await svc(['schedules', 'create', '--agent', 'support-desk', '--every', 'hourly', '--message', 'Report.'])).stderr).toContain(
      '--every is a duration such as 30s, 5m, 2h or 1d (not "hourly")',
    );
    const badCron = await svc(['schedules', 'create', '--agent', 'support-desk', '--cron', 'every day', '--message', 'Report.']);
    expect(badCron.code).toBe(1);
    expect(badCron.stderr).toMatch(/\(bad_request, request [0-9a-f-]{36}\)/);

    const created = await svc([
      'schedules',
      'create',
      '--agent',
      'support-desk',
      '--every',
      '1h',
      '--name',
      'Hourly digest',
      '--message',
      'Summarize the last hour.',
      '--overlap',
      'skip',
    ]);
    expect(created.code, created.stderr).toBe(0);
    const [, scheduleId] = /^Created schedule ([0-9a-f-]{36}) "Hourly digest"  active$/m.exec(created.stdout)!;
    expect(created.stdout).toContain('every 1 h · overlap skip · catch-up window 1 min');
    expect(created.stdout).toContain('→ a new session each firing');
    expect(created.stdout).toMatch(/^ {2}acts as: principal [0-9a-f-]{36} \(its creator\)$/m);
    // The next firings show once the Temporal Schedule exists (after the commit).
    const shown = await eventually(async () => {
      const got = await svc(['schedules', 'get', scheduleId!]);
      return /^ {2}next: \d{4}-\d\d-\d\dT/m.test(got.stdout) ? got.stdout : undefined;
    }, 'the next firings');
    expect(shown).toContain('recent firings: none yet');
    expect((await svc(['schedules', 'list'])).stdout).toMatch(new RegExp(`^${scheduleId}  every 1 h  next \\S+Z  last —  Hourly digest$`, 'm'));

    f.fakes.vendor_a.reply({ text: 'The digest.' });
    const triggered = await svc(['schedules', 'trigger', scheduleId!]);
    expect(triggered.code, triggered.stderr).toBe(0);
    expect(triggered.stdout).toContain(`Triggered schedule ${scheduleId}`);
    const firing = await eventually(async () => {
      const got = JSON.parse((await svc(['schedules', 'get', scheduleId!, '--json'])).stdout) as {
        recentFirings: Array<{ outcome: string; runId: string | null }>;
      };
      return got.recentFirings[0]?.runId ? got.recentFirings[0] : undefined;
    }, 'the triggered firing');
    expect(firing.outcome).toBe('started');
    await f.waitForRun(firing.runId!);
    expect((await svc(['schedules', 'get', scheduleId!])).stdout).toMatch(new RegExp(`^ {4}\\S+Z  started run ${firing.runId} in session [0-9a-f-]{36}$`, 'm'));

    const paused = await svc(['schedules', 'pause', scheduleId!]);
    expect(paused.stdout).toContain(`Paused schedule ${scheduleId}: no firings until svc schedules unpause ${scheduleId}`);
    const whilePaused = await svc(['schedules', 'get', scheduleId!]);
    expect(whilePaused.stdout).toContain('  paused');
    expect(whilePaused.stdout).toContain('next: (none: paused)');
    expect((await svc(['schedules', 'list'])).stdout).toMatch(new RegExp(`^${scheduleId}  every 1 h  paused  last started `, 'm'));
    expect((await svc(['schedules', 'unpause', scheduleId!])).stdout).toContain(`Unpaused schedule ${scheduleId}`);
    expect(JSON.parse((await svc(['schedules', 'get', scheduleId!, '--json'])).stdout).paused).toBe(false);

    const changed = await svc(['schedules', 'update', scheduleId!, '--cron', '0 9 * * 1-5', '--time-zone', 'Europe/Paris', '--message', 'The morning digest.']);
    expect(changed.code, changed.stderr).toBe(0);
    expect(changed.stdout).toContain('cron "0 9 * * 1-5" in Europe/Paris');
    expect(changed.stdout).toContain('message: The morning digest.');
    expect((await svc(['schedules', 'update', scheduleId!])).code).toBe(2); // nothing to change

    const deleted = await svc(['schedules', 'delete', scheduleId!]);
    expect(deleted.stdout).toContain(`Deleted schedule ${scheduleId} and its Temporal Schedule`);
    const gone = await svc(['schedules', 'get', scheduleId!]);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(/\(not_found, request [0-9a-f-]{36}\)/);
    expect((await svc(['schedules', 'list'])).stdout.trim()).toBe('(no schedules)');
  });
});
