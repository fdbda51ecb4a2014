import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  NativeConnection,
  Runtime,
  Worker,
  type LogLevel as TemporalLogLevel,
  type LogMetadata,
  type Logger as TemporalLogger,
} from '@temporalio/worker';
import type { Logger } from '../config/logger.ts';
import type { TemporalSecurity } from '../config/settings.ts';
import { temporalConnectionOptions } from './connection-options.ts';
import { loadWorkflowBundle } from './workflow-bundle.ts';

/**
 * The runtime worker: polls one task queue for the workflows exported by workflows/index.ts and
 * the activities it is given. The worker side's composition root (scripts/runtime.ts, used by
 * `npm run worker`, `npm start` and the tests) builds the activities and passes them in, so this
 * file knows nothing about their dependencies.
 */

/** Absolute path of the workflow bundle's entry; the SDK bundles it (and its `.ts` imports) with webpack as is. */
export const workflowsPath = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'workflows', 'index.ts');

export type RuntimeWorkerOptions = {
  address: string;
  namespace: string;
  taskQueue: string;
  logger: Logger;
  /** Activity implementations by name (activities/index.ts `createActivities`, built by scripts/runtime.ts). */
  activities: object;
  /** TLS and API key settings of an external cluster (none for the dev server). */
  security?: TemporalSecurity;
};

export type RuntimeWorker = {
  worker: Worker;
  /**
   * The worker's own connection. A client built on it can start workflows eagerly: the server
   * hands the first workflow task straight back to this worker in the start response.
   */
  connection: NativeConnection;
  /** Polls until shutdown() or a fatal error, then closes the connection. */
  run(): Promise<void>;
  /** Stops polling, lets in-flight tasks finish, and resolves when run() has. */
  shutdown(): Promise<void>;
};

/** Connects to Temporal and builds (but does not start) the worker; the workflow bundle is built (or reused) here. */
export async function createRuntimeWorker(options: RuntimeWorkerOptions): Promise<RuntimeWorker> {
  const { address, namespace, taskQueue, logger } = options;
  // Bundled here rather than by Worker.create so webpack's multi-line build report lands at
  // debug level; its errors still log at error.
  const bundleStarted = performance.now();
  const { fromCache, ...workflowBundle } = await loadWorkflowBundle({ workflowsPath, logger: toTemporalLogger(logger.child({ component: 'workflow-bundler' }), 'debug') });
  logger.debug('workflow bundle loaded', { fromCache, ms: Math.round(performance.now() - bundleStarted) });
  const connection = await NativeConnection.connect({ address, ...temporalConnectionOptions(options.security) });
  let worker: Worker;
  try {
    worker = await Worker.create({
      connection,
      namespace,
      taskQueue,
      workflowBundle,
      activities: options.activities,
      // A workflow task waits this long on the sticky queue of the worker that last ran the
      // workflow before it goes to any worker: a worker that died (SIGKILL) holds up its runs for
      // this long instead of the SDK's 10 s default.
      stickyQueueScheduleToStartTimeout: '3 seconds',
    });
  } catch (error) {
    await connection.close();
    throw error;
  }

  let running: Promise<void> | undefined;
  const run = () => {
    running ??= worker.run().finally(() => connection.close());
    return running;
  };
  const shutdown = async () => {
    // A created worker holds the connection until it has run; the SDK offers no other release,
    // so a never-run worker is started and drained at once.
    const done = run();
    if (worker.getState() === 'RUNNING') worker.shutdown();
    await done;
  };
  logger.debug('temporal worker created', { address, namespace, taskQueue });
  return { worker, connection, run, shutdown };
}

/**
 * Routes the SDK's logs (worker lifecycle, workflow and activity context loggers) and Core's
 * native logs (at WARN and above) to our JSON logger, and leaves signal handling to the caller.
 * Call once per process, before anything connects to Temporal: the Runtime is a process-wide
 * singleton.
 */
export function installWorkerRuntime(logger: Logger): void {
  Runtime.install({
    logger: toTemporalLogger(logger.child({ component: 'temporal' })),
    telemetryOptions: { logging: { filter: { core: 'WARN', other: 'ERROR' }, forward: {} } },
    // The process entry point owns SIGTERM/SIGINT (drain, then stop the dev server, then exit);
    // the Runtime's own handlers would race it.
    shutdownSignals: [],
  });
}

/** Adapts our logger to the SDK's interface; `infoAs` demotes a chatty source's info lines. */
function toTemporalLogger(logger: Logger, infoAs: 'info' | 'debug' = 'info'): TemporalLogger {
  const log = (level: TemporalLogLevel, message: string, meta?: LogMetadata) => {
    const fields = meta ? { ...meta } : undefined;
    switch (level) {
      case 'TRACE':
      case 'DEBUG':
        return logger.debug(message, fields);
      case 'INFO':
        return logger[infoAs](message, fields);
      case 'WARN':
        return logger.warn(message, fields);
      case 'ERROR':
        return logger.error(message, fields);
    }
  };
  return {
    log,
    trace: (message, meta) => log('TRACE', message, meta),
    debug: (message, meta) => log('DEBUG', message, meta),
    info: (message, meta) => log('INFO', message, meta),
    warn: (message, meta) => log('WARN', message, meta),
    error: (message, meta) => log('ERROR', message, meta),
  };
}
