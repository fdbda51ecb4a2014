import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { createLogger } from '../config/logger.ts';
import { parseSettingsOrExit, SettingsError, warnOfDeprecatedSettings } from '../config/settings.ts';
import { startTracing } from '../config/tracing.ts';
import { devServerConfigFileName } from '../temporal/dev-server-config.ts';
import { startDevServer, type DevServer } from '../temporal/dev-server.ts';
import { openConfiguredDatabase } from '../db/open.ts';
import { runtimeTaskQueue } from '../temporal/task-queues.ts';
import { freeCoreMetricsAddress, installWorkerRuntime } from '../temporal/worker.ts';
import { loadSettingsDependencies } from './dependencies.ts';
import { ensureSandboxPackages } from './system-packages.ts';
import { createRuntime, type Runtime } from './runtime.ts';
import { startOperatorServer } from '../api/operator-server.ts';
import { databaseProbes } from '../db/health.ts';
import { createReadiness, type Readiness } from '../services/kernel/health/index.ts';
import { observeDatabasePool } from '../services/kernel/metrics/index.ts';
import { observeRuntimeState } from '../services/kernel/metrics/index.ts';
import type { DatabaseHandle } from '../db/client.ts';
import { temporalProbe } from '../temporal/health.ts';

/**
 * `npm run worker`: the Temporal worker process. Connects to TEMPORAL_ADDRESS, or starts (or
 * reuses) the local dev server from temporal-dev.yaml when it is unset. SIGTERM or SIGINT drains
 * the worker (in-flight tasks finish, polling stops) and exits 0; a second signal exits at once.
 */

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const settings = parseSettingsOrExit();
// First, so every span below is recorded (nothing is started when no OTLP endpoint is set).
const tracing = startTracing({ enabled: settings.tracing.enabled, serviceName: 'agent-runtime-worker' });

const logger = createLogger({ level: settings.logLevel, base: { process: 'worker' } });
warnOfDeprecatedSettings(settings, logger);
// With an operator port, the SDK's own metrics are exported too (appended to its `/metrics`).
const coreMetricsAddress = settings.workerMetricsPort === null ? null : await freeCoreMetricsAddress();
installWorkerRuntime(logger, { coreMetricsAddress });
// Sandboxed runs need bubblewrap and socat: installed beside start-up when missing (never blocks it).
void ensureSandboxPackages(logger);

let devServer: DevServer | undefined;
let runtime: Runtime | undefined;
let readiness: Readiness | undefined;
let stopSignal: NodeJS.Signals | undefined;
/** The drain a signal began: the database closes only after it (its listeners unlisten first). */
let stopping: Promise<unknown> | undefined;

// Installed before anything starts, so a signal during start-up still stops the dev server.
const onSignal = (signal: NodeJS.Signals) => {
  if (stopSignal) {
    logger.warn('second signal: exiting without draining', { signal });
    process.exit(1);
  }
  stopSignal = signal;
  logger.info('worker stopping', { signal, graceMs: settings.shutdownGraceMs });
  // Reported not ready (`/readyz` 503 draining) for the grace time, then drained.
  readiness?.drain();
  stopping = sleep(settings.shutdownGraceMs)
    .then(() => runtime?.shutdown())
    .catch((error: unknown) => logger.error('worker shutdown failed', { err: error }));
};
process.on('SIGTERM', onSignal);
process.on('SIGINT', onSignal);

try {
  const { address, namespace } = await temporalTarget();
  const taskQueue = runtimeTaskQueue(settings);
  const database = await openConfiguredDatabase(settings);
  runtime = await createRuntime({
    settings,
    logger,
    database,
    dependencies: loadSettingsDependencies(settings),
    temporal: { address, namespace, taskQueue },
    tracing,
  });
  readiness = createReadiness({ ...databaseProbes(database), temporal: temporalProbe(runtime.client.client) });
  const operator = settings.workerMetricsPort === null ? null : await startWorkerOperatorPort(settings.workerMetricsPort, readiness, database);
  if (stopSignal) {
    await runtime.shutdown();
  } else {
    const running = runtime.run();
    logger.info('worker started', { taskQueue, namespace, address, ...(operator ? { probes: `${operator.url}/readyz` } : {}) });
    await running;
    await stopping;
    logger.info('worker stopped', { taskQueue });
  }
  await operator?.close();
  await database.close();
  await devServer?.stop();
  await tracing?.shutdown().catch(() => {});
  process.exit(0);
} catch (error) {
  logger.error('worker failed', { error });
  process.stderr.write(`${(error as Error).message}\n`);
  await devServer?.stop().catch(() => {});
  process.exit(1);
}

async function temporalTarget(): Promise<{ address: string; namespace: string }> {
  const { address, namespace, cliPath } = settings.temporal;
  if (address !== undefined) return { address, namespace };
  devServer = await startDevServer({ projectRoot, dataDir: settings.dataDir, cliPath, logger });
  if (devServer.namespace !== namespace) {
    throw new SettingsError(
      `TEMPORAL_NAMESPACE=${namespace} but the local dev server serves "${devServer.namespace}" (${devServerConfigFileName}); make them match`,
    );
  }
  return { address: devServer.address, namespace };
}

/** `/metrics` (with the database's state gauges and the SDK's own metrics), `/healthz`, `/readyz`. */
async function startWorkerOperatorPort(port: number, probes: Readiness, database: DatabaseHandle) {
  observeDatabasePool(() => database.poolStats());
  observeRuntimeState(database.db, logger);
  return startOperatorServer({
    readiness: probes,
    port,
    host: settings.host,
    coreMetricsUrl: coreMetricsAddress ? `http://${coreMetricsAddress}/metrics` : null,
    onCoreMetricsFailure: (error) => logger.warn("the Temporal SDK's metrics could not be read", { err: error }),
  });
}
