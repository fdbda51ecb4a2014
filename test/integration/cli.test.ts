import { execFile } from 'node:child_process';
import { mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveApp, type ServedApp } from '../support/http-server.ts';
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
    const yaml = (prompt: string) => `name: Support desk\nkey: support-desk\nconfig:\n  systemPrompt: ${prompt}\n  modelPreset: fast\n  limits:\n    maxTurns: 4\n`;
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
    await writeFile(file, JSON.stringify({ name: 'Broken', config: { systemPrompt: 'You help customers with their orders.', modelPreset: 'fast', limits: { maxTurns: 0 } } }));
    const refused = await svc(['agents', 'apply', file]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^error: .+ \(bad_request, request [0-9a-f-]{36}\)$/m);
    const unknown = await svc(['agents', 'fly']);
    expect(unknown.code).toBe(2);
  });
});
