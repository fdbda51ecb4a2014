import { spawn, type ChildProcess } from 'node:child_process';
import { lstatSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const nodeBinary = path.join(projectRoot, 'node_modules', '.bin', 'node');
const parentDir = mkdtempSync(path.join(os.tmpdir(), 'svc-start-'));
// A data dir that does not exist yet, so the service creates it (and chooses its mode).
const dataDir = path.join(parentDir, 'data');
let child: ChildProcess | undefined;

afterAll(() => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  rmSync(parentDir, { recursive: true, force: true });
});

/** Every path under `root` (itself included) whose mode gives its group or others any access. */
function openToOthers(root: string): string[] {
  const found: string[] = [];
  const walk = (at: string) => {
    const info = lstatSync(at);
    if (!info.isSymbolicLink() && (info.mode & 0o077) !== 0) found.push(`${path.relative(root, at) || '.'} ${(info.mode & 0o777).toString(8)}`);
    if (info.isDirectory()) for (const name of readdirSync(at)) walk(path.join(at, name));
  };
  walk(root);
  return found;
}

/**
 * `npm start` on a fresh data dir: embedded PGlite, the local Temporal dev server from
 * temporal-dev.yaml, API and worker in one process. Runs the same script `npm start` runs.
 */
describe('npm start', () => {
  it('boots on embedded defaults, prints its addresses, and answers /v1/context with a development cookie', async () => {
    const env = { ...process.env, SVC_DATA_DIR: dataDir, PORT: '0', DATABASE_URL: '', TEMPORAL_ADDRESS: '', SVC_WORKER_METRICS_PORT: '0' };
    child = spawn(nodeBinary, ['scripts/start.ts'], { cwd: projectRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout!.on('data', (chunk) => (output += chunk));
    child.stderr!.on('data', (chunk) => (output += chunk));

    const apiUrl = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`npm start did not print its addresses:\n${output}`)), 150_000);
      const poll = setInterval(() => {
        const match = /API\s+(http:\/\/\S+)\/v1/.exec(output);
        if (match && /Temporal Web UI\s+http/.test(output) && /Console\s+http/.test(output)) {
          clearInterval(poll);
          clearTimeout(timer);
          resolve(match[1]!);
        }
        if (child!.exitCode !== null) {
          clearInterval(poll);
          clearTimeout(timer);
          reject(new Error(`npm start exited with ${child!.exitCode}:\n${output}`));
        }
      }, 200);
    });

    const login = await fetch(`${apiUrl}/v1/auth/development/login`, { method: 'POST', headers: { origin: 'http://localhost:8080' } });
    expect(login.status).toBe(200);
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    const context = await fetch(`${apiUrl}/v1/context`, { headers: { cookie } });
    expect(context.status).toBe(200);
    const body = (await context.json()) as { principal: { scopes: string[]; organizationRole: string }; project: { slug: string } };
    expect(body.principal.scopes).toEqual(['*']);
    expect(body.principal.organizationRole).toBe('owner');
    expect(body.project.slug).toBe('default');
    const consolePage = await fetch(`${apiUrl}/`);
    expect(consolePage.status).toBe(200);
    expect(await consolePage.text()).toContain('Agent Runtime Service');

    // The one process's metrics on the operator port it printed: the worker's database gauges
    // (read from PGlite), its pool of one, and the Temporal SDK's own.
    const metricsUrl = /Metrics\s+(http:\/\/\S+\/metrics)/.exec(output)?.[1];
    expect(metricsUrl, output).toBeDefined();
    const metrics = await (await fetch(metricsUrl!)).text();
    expect(metrics).toContain('agent_runtime_runs_unsettled{state="queued"} 0');
    expect(metrics).toContain('agent_runtime_db_pool_size 1');
    expect(metrics).toMatch(/^temporal_worker_task_slots_available\{/m);

    // Issue 28 finding 6: the embedded database, the generated credential key and the dev
    // server's files are readable and writable by this user only.
    expect(readdirSync(path.join(dataDir, 'pglite')).length).toBeGreaterThan(0);
    expect(openToOthers(dataDir)).toEqual([]);

    const exitCode = await new Promise<number | null>((resolve) => {
      child!.once('exit', (code) => resolve(code));
      child!.kill('SIGTERM');
    });
    expect(exitCode).toBe(0);
    expect(openToOthers(dataDir)).toEqual([]);
  }, 200_000);
});
