import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createLogger } from '../../config/logger.ts';
import { locateTemporalCli } from '../../temporal/cli.ts';
import { connectTemporal, type TemporalClientHandle } from '../../temporal/client.ts';
import { startDevServer } from '../../temporal/dev-server.ts';

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const logger = createLogger({ level: 'silent' });

let temporal: TemporalClientHandle;
let scratch: string;

beforeAll(async () => {
  temporal = await connectTemporal(inject('temporal'));
  scratch = await mkdtemp(path.join(tmpdir(), 'temporal-worker-test-'));
});

afterAll(async () => {
  await temporal?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('dev server launcher', () => {
  it('registers the search attributes from temporal-dev.yaml', async () => {
    const { namespace } = inject('temporal');
    const { customAttributes } = await temporal.connection.operatorService.listSearchAttributes({ namespace });
    expect(Object.keys(customAttributes)).toEqual(expect.arrayContaining(['projectId', 'sessionId', 'agentId', 'runState']));
  });

  it('reuses a server already answering at the configured port', async () => {
    const port = Number(inject('temporal').address.split(':').pop());
    const server = await startDevServer({ projectRoot, dataDir: scratch, logger, overrides: { port, headless: true, inMemory: true } });
    expect(server.reused).toBe(true);
    expect(server.address).toBe(inject('temporal').address);
    await server.stop();
    // stop() on a reused server leaves it running.
    await temporal.connection.workflowService.getSystemInfo({});
  });

  it('refuses a port held by something that is not Temporal, naming the port and the yaml file', async () => {
    const sockets = new Set<net.Socket>();
    const squatter = net.createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.end('not grpc\n');
    });
    await new Promise<void>((resolve) => squatter.listen({ host: '127.0.0.1', port: 0 }, resolve));
    const { port } = squatter.address() as net.AddressInfo;
    try {
      await expect(startDevServer({ projectRoot, dataDir: scratch, logger, overrides: { port, headless: true, inMemory: true } })).rejects.toThrow(
        new RegExp(`Port ${port} on 127\\.0\\.0\\.1 is in use by something that is not a Temporal frontend.*temporal-dev\\.yaml`),
      );
    } finally {
      // The gRPC client leaves half-closed sockets behind; close() would wait for them forever.
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => squatter.close(resolve));
    }
  });
});

describe('temporal cli lookup', () => {
  it('refuses a TEMPORAL_CLI_PATH that is not executable, naming the variable', async () => {
    const notExecutable = path.join(scratch, 'temporal');
    await writeFile(notExecutable, '#!/bin/sh\n');
    await chmod(notExecutable, 0o644);
    await expect(locateTemporalCli({ cliPath: notExecutable, projectRoot, logger })).rejects.toThrow(/TEMPORAL_CLI_PATH=.*temporal is not executable/);
    await expect(locateTemporalCli({ cliPath: path.join(scratch, 'missing'), projectRoot, logger })).rejects.toThrow(
      /TEMPORAL_CLI_PATH=.*missing does not exist/,
    );
  });

  it('uses an executable TEMPORAL_CLI_PATH as given', async () => {
    const executable = path.join(scratch, 'temporal-ok');
    await writeFile(executable, '#!/bin/sh\n');
    await chmod(executable, 0o755);
    await expect(locateTemporalCli({ cliPath: executable, projectRoot, logger })).resolves.toEqual({
      kind: 'executable',
      path: executable,
      source: 'TEMPORAL_CLI_PATH',
    });
  });
});

describe('npm run worker (scripts/worker.ts)', () => {
  it('polls its task queue and drains on SIGTERM with exit code 0', async () => {
    const { address, namespace } = inject('temporal');
    const taskQueue = `worker-test-${randomUUID()}`;
    const child = spawn(path.join(projectRoot, 'node_modules', '.bin', 'node'), ['scripts/worker.ts'], {
      cwd: projectRoot,
      env: {
        ...process.env,
        TEMPORAL_ADDRESS: address,
        TEMPORAL_NAMESPACE: namespace,
        TEMPORAL_TASK_QUEUE: taskQueue,
        SVC_DATA_DIR: path.join(scratch, 'data'),
        SVC_LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const stderr: string[] = [];
    child.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
    try {
      const started = await waitForLogLine(child, (line) => line.msg === 'worker started', 60_000);
      expect(started).toMatchObject({ taskQueue, namespace, address });

      await expect.poll(() => workflowPollerCount(namespace, taskQueue), { timeout: 20_000, interval: 250 }).toBeGreaterThan(0);

      child.kill('SIGTERM');
      const code = await Promise.race([exit, delay(30_000).then(() => 'timeout' as const)]);
      expect(code, stderr.join('')).toBe(0);
      expect(isAlive(child.pid!)).toBe(false);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });
});

async function workflowPollerCount(namespace: string, taskQueue: string): Promise<number> {
  // taskQueueType defaults to workflow tasks.
  const response = await temporal.connection.workflowService.describeTaskQueue({ namespace, taskQueue: { name: taskQueue } });
  return response.pollers.length;
}

/** Resolves with the first JSON log line on the child's stdout that matches. */
function waitForLogLine(child: ChildProcess, matches: (line: Record<string, unknown>) => boolean, timeoutMs: number) {
  return new Promise<Record<string, unknown>>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    const timer = setTimeout(() => reject(new Error(`no matching log line within ${timeoutMs} ms`)), timeoutMs);
    child.once('exit', (code) => reject(new Error(`worker exited (code ${code}) before logging the expected line`)));
    lines.on('line', (text) => {
      let line: Record<string, unknown>;
      try {
        line = JSON.parse(text) as Record<string, unknown>;
      } catch {
        return;
      }
      if (matches(line)) {
        clearTimeout(timer);
        resolve(line);
      }
    });
  });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
