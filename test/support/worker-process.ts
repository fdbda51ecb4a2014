import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const nodeBinary = path.join(projectRoot, 'node_modules', '.bin', 'node');
/** How long a service process may take to say it is ready. */
const START_CEILING_MS = 150_000;

/**
 * `npm run worker` as its own OS process against a test database and the run's Temporal dev
 * server, for fault tests that SIGKILL it. Resolves once it polls. Needs a PostgreSQL server:
 * two processes cannot share an embedded PGlite database.
 */
export async function startWorkerProcess(options: {
  databaseUrl: string;
  taskQueue: string;
  dataDir: string;
  env?: Record<string, string>;
}): Promise<ChildProcess> {
  const { child } = await startServiceProcess('scripts/worker.ts', '"msg":"worker started"', options);
  return child;
}

/** `npm run api` as its own OS process on a free port; resolves with its base URL once it listens. */
export async function startApiProcess(options: {
  databaseUrl: string;
  taskQueue: string;
  dataDir: string;
  env?: Record<string, string>;
}): Promise<{ child: ChildProcess; url: string }> {
  const { child, output } = await startServiceProcess('scripts/api.ts', '"msg":"api listening"', { ...options, env: { PORT: '0', ...options.env } });
  const line = output()
    .split('\n')
    .find((entry) => entry.includes('"msg":"api listening"'))!;
  return { child, url: (JSON.parse(line) as { url: string }).url.replace(/\/v1$/, '') };
}

async function startServiceProcess(
  script: string,
  ready: string,
  options: { databaseUrl: string; taskQueue: string; dataDir: string; env?: Record<string, string> },
): Promise<{ child: ChildProcess; output: () => string }> {
  const { address, namespace } = inject('temporal');
  const child = spawn(nodeBinary, [script], {
    cwd: projectRoot,
    env: {
      ...process.env,
      DATABASE_URL: options.databaseUrl,
      TEMPORAL_ADDRESS: address,
      TEMPORAL_NAMESPACE: namespace,
      TEMPORAL_TASK_QUEUE: options.taskQueue,
      // The same data dir as the API: the worker reads the same credential key from it.
      SVC_DATA_DIR: options.dataDir,
      SVC_LOG_LEVEL: 'info',
      // Last, so a fault test can route a process through a proxy (TEMPORAL_ADDRESS, DATABASE_URL).
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  await new Promise<void>((resolve, reject) => {
    // A ceiling, not a bound: beside two other files on 2 cores a process took over a minute to
    // print its first line.
    const timer = setTimeout(() => {
      clearInterval(poll);
      child.kill('SIGKILL'); // not left running after the test gave up on it
      reject(new Error(`${script} did not start within ${START_CEILING_MS / 1000} s:\n${output}`));
    }, START_CEILING_MS);
    const poll = setInterval(() => {
      if (output.includes(ready)) {
        clearInterval(poll);
        clearTimeout(timer);
        resolve();
      } else if (child.exitCode !== null) {
        clearInterval(poll);
        clearTimeout(timer);
        reject(new Error(`${script} exited ${child.exitCode}:\n${output}`));
      }
    }, 100);
  });
  return { child, output: () => output };
}

/** SIGKILL, and resolves once the process is gone. */
export async function killProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

/** Polls `probe` until it returns something truthy. */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined | null | false>, timeoutMs = 90_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Kept for the fault tests that name it. */
export const killWorkerProcess = killProcess;
