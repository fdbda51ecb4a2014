import * as net from 'node:net';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { NativeConnection, Runtime, Worker, type LogLevel as TemporalLogLevel, type LogMetadata, type Logger as TemporalLogger } from '@temporalio/worker';
import type { Logger } from '../config/logger.ts';
import type { TemporalSecurity } from '../config/settings.ts';
import type { Tracing } from '../config/tracing.ts';
import { temporalConnectionOptions } from './connection-options.ts';
import { tracingWorkerOptions, tracingWorkflowInterceptorsPath } from './tracing.ts';
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
  /** The process's tracing (config/tracing.ts); absent or null: no interceptor, sink or traced bundle. */
  tracing?: Tracing | null;
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
  const { fromCache, ...workflowBundle } = await loadWorkflowBundle({
    workflowsPath,
    logger: toTemporalLogger(logger.child({ component: 'workflow-bundler' }), 'debug'),
    ...(options.tracing ? { workflowInterceptorModules: [tracingWorkflowInterceptorsPath] } : {}),
  });
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
      ...tracingWorkerOptions(options.tracing),
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
 * singleton. `coreMetricsAddress` (`127.0.0.1:<port>`) turns on the SDK's Prometheus exporter.
 */
export function installWorkerRuntime(logger: Logger, options: { coreMetricsAddress?: string | null } = {}): void {
  const logging = { filter: { core: 'WARN', other: 'ERROR' }, forward: {} } as const;
  Runtime.install({
    logger: toTemporalLogger(logger.child({ component: 'temporal' })),
    // The SDK's own worker metrics (task slots, poll and schedule-to-start latencies, sticky cache)
    // from Core's Prometheus exporter, on a loopback address the operator port's `/metrics` reads.
    telemetryOptions: options.coreMetricsAddress
      ? {
          logging,
          metrics: { prometheus: { bindAddress: options.coreMetricsAddress, countersTotalSuffix: true, unitSuffix: true, useSecondsForDurations: true } },
        }
      : { logging },
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

/**
 * A loopback address for the SDK's Prometheus exporter: a port free now (the OS picks it), read
 * by this process's `/metrics` only.
 */
export async function freeCoreMetricsAddress(): Promise<string> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `127.0.0.1:${port}`;
}
