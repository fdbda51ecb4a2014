import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@temporalio/client';
import { bundleWorkflowCode, NativeConnection, Worker } from '@temporalio/worker';
import type { BareActivities } from './workflow.ts';

const workflowsPath = path.resolve(path.dirname(fileURLToPath(import.meta.url)), 'workflow.ts');
const silentLogger = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} };

/**
 * The bare side of a benchmark: its own bundle (bench/baseline/workflow.ts), task queue and
 * worker, and a client on the worker's connection, so its starts can be eager like the
 * service's (`requestEagerStart`).
 */
export async function startBareWorker(address: string, namespace: string) {
  const taskQueue = `bench-bare-${randomUUID()}`;
  const workflowBundle = await bundleWorkflowCode({ workflowsPath, logger: silentLogger });
  const connection = await NativeConnection.connect({ address });
  const activities: BareActivities = { echo: async (input) => input };
  const worker = await Worker.create({ connection, namespace, taskQueue, workflowBundle, activities });
  const running = worker.run();
  const client = new Client({ connection, namespace });
  return {
    taskQueue,
    /** Runs a bare workflow to its end, started eagerly. */
    execute: (type: 'bareWorkflow' | 'bareDelegation') =>
      client.workflow.execute(type, { taskQueue, workflowId: `bare-${randomUUID()}`, args: ['hello'], requestEagerStart: true }),
    async shutdown() {
      worker.shutdown();
      await running;
      await connection.close();
    },
  };
}
