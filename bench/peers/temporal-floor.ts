import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@temporalio/client';
import { bundleWorkflowCode, NativeConnection, Worker } from '@temporalio/worker';
import { createLogger } from '../../config/logger.ts';
import { startDevServer } from '../../temporal/dev-server.ts';
import { installWorkerRuntime } from '../../temporal/worker.ts';
import type { InstantModelServer } from '../instant-model-server.ts';
import { percentile } from '../support.ts';
import type { FloorActivities } from './floor/workflow.ts';
import { cpuSeconds } from './processes.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const projectRoot = path.resolve(here, '..', '..');
const silent = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} };

export type TemporalFloor = { oneTurnP50: number; perSecond: number; serverCpuMsPerRun: number; totalCpuMsPerRun: number; concurrency: number };

/**
 * What Temporal itself costs a durable one-turn agent on this machine: the dev server as
 * `npm start` runs it (temporal-dev.yaml, history in a SQLite file), one workflow whose one
 * activity calls the instant model, started eagerly by a client on the worker's connection (the
 * fastest start Temporal offers). Latency p50 over `sequential` runs; runs/s and CPU per run
 * (the Temporal server's, and with this process's worker) at `concurrency`.
 */
export async function measureTemporalFloor(
  model: InstantModelServer,
  options: { sequential: number; runs: number; concurrency: number },
): Promise<TemporalFloor> {
  try {
    installWorkerRuntime(createLogger({ level: 'error' }));
  } catch {
    // installed already
  }
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'temporal-floor-'));
  const devServer = await startDevServer({
    projectRoot,
    dataDir,
    cliPath: process.env.TEMPORAL_CLI_PATH || undefined,
    logger: createLogger({ level: 'warn' }),
    overrides: { port: 0, headless: true },
  });
  const connection = await NativeConnection.connect({ address: devServer.address });
  const taskQueue = `floor-${randomUUID()}`;
  const activities: FloorActivities = {
    async callModel(message) {
      const response = await fetch(`${model.baseUrl}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer sk-instant' },
        body: JSON.stringify({
          model: 'gpt-5.1',
          messages: [
            { role: 'system', content: 'You are a helpful assistant.' },
            { role: 'user', content: message },
          ],
        }),
      });
      return ((await response.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]!.message.content;
    },
  };
  const worker = await Worker.create({
    connection,
    namespace: devServer.namespace,
    taskQueue,
    workflowBundle: await bundleWorkflowCode({ workflowsPath: path.join(here, 'floor', 'workflow.ts'), logger: silent }),
    activities,
  });
  const running = worker.run();
  const client = new Client({ connection, namespace: devServer.namespace });
  const execute = async () => {
    const handle = await client.workflow.start('floorAgent', { taskQueue, workflowId: `floor-${randomUUID()}`, args: ['Hello.'], requestEagerStart: true });
    if ((await handle.result()) !== 'Done.') throw new Error('floor workflow answered otherwise');
  };
  try {
    for (let i = 0; i < 10; i++) await execute();
    const times: number[] = [];
    for (let i = 0; i < options.sequential; i++) {
      const began = performance.now();
      await execute();
      times.push(performance.now() - began);
    }
    times.sort((a, b) => a - b);
    const server = { groups: [], markers: [dataDir] };
    const serverBefore = cpuSeconds(server);
    const ownBefore = process.cpuUsage();
    const began = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: options.concurrency }, async () => {
        while (next < options.runs) {
          next += 1;
          await execute();
        }
      }),
    );
    const seconds = (performance.now() - began) / 1000;
    const own = process.cpuUsage(ownBefore);
    const serverCpu = cpuSeconds(server) - serverBefore;
    return {
      oneTurnP50: percentile(times, 50),
      perSecond: options.runs / seconds,
      serverCpuMsPerRun: (serverCpu * 1000) / options.runs,
      totalCpuMsPerRun: (serverCpu * 1000 + (own.user + own.system) / 1000) / options.runs,
      concurrency: options.concurrency,
    };
  } finally {
    worker.shutdown();
    await running;
    await connection.close();
    await devServer.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
