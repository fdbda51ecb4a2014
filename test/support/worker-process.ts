import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const nodeBinary = path.join(projectRoot, 'node_modules', '.bin', 'node');

/**
 * `npm run worker` as its own OS process against a test database and the run's Temporal dev
 * server, for fault tests that SIGKILL it. Resolves once it polls. Needs a PostgreSQL server:
 * two processes cannot share an embedded PGlite database.
 */
export async function startWorkerProcess(options: { databaseUrl: string; taskQueue: string; dataDir: string; env?: Record<string, string> }): Promise<ChildProcess> {
  const { address, namespace } = inject('temporal');
  const child = spawn(nodeBinary, ['scripts/worker.ts'], {
    cwd: projectRoot,
    env: {
      ...process.env,
      ...options.env,
      DATABASE_URL: options.databaseUrl,
      TEMPORAL_ADDRESS: address,
      TEMPORAL_NAMESPACE: namespace,
      TEMPORAL_TASK_QUEUE: options.taskQueue,
      // The same data dir as the API: the worker reads the same credential key from it.
      SVC_DATA_DIR: options.dataDir,
      SVC_LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker did not start:\n${output}`)), 60_000);
    const poll = setInterval(() => {
      if (output.includes('"msg":"worker started"')) {
        clearInterval(poll);
        clearTimeout(timer);
        resolve();
      } else if (child.exitCode !== null) {
        clearInterval(poll);
        clearTimeout(timer);
        reject(new Error(`worker exited ${child.exitCode}:\n${output}`));
      }
    }, 100);
  });
  return child;
}

/** SIGKILL, and resolves once the process is gone. */
export async function killWorkerProcess(child: ChildProcess): Promise<void> {
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
