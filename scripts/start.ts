import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { createLogger } from '../config/logger.ts';
import { parseSettingsOrExit, warnOfDeprecatedSettings } from '../config/settings.ts';
import { startTracing } from '../config/tracing.ts';
import { openConfiguredDatabase } from '../db/open.ts';
import { startApiServer } from '../api/server.ts';
import { createAppDeps } from './app-deps.ts';
import { loadSettingsDependencies } from './dependencies.ts';
import { startDevServer, type DevServer } from '../temporal/dev-server.ts';
import { temporalProbe } from '../temporal/health.ts';
import { runtimeTaskQueue } from '../temporal/task-queues.ts';
import { freeCoreMetricsAddress, installWorkerRuntime } from '../temporal/worker.ts';
import { ensureSandboxPackages } from './system-packages.ts';
import { ensureConsoleBundle } from '../console/build.ts';
import { createRuntime } from './runtime.ts';
import { startOperatorServer } from '../api/operator-server.ts';
import { observeDatabasePool } from '../services/kernel/metrics/index.ts';
import { observeRuntimeState } from '../services/kernel/metrics/index.ts';

/**
 * `npm start`: the whole service in one process for a developer — the API, the Temporal worker,
 * embedded PGlite (unless DATABASE_URL is set) and a local Temporal dev server from
 * temporal-dev.yaml (unless TEMPORAL_ADDRESS is set). Prints where everything is.
 */

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const settings = parseSettingsOrExit();
// First, so every span below is recorded (nothing is started when no OTLP endpoint is set).
const tracing = startTracing({ enabled: settings.tracing.enabled, serviceName: 'agent-runtime' });

const logger = createLogger({ level: settings.logLevel, base: { process: 'start' } });
warnOfDeprecatedSettings(settings, logger);
// With an operator port, the SDK's own metrics are exported too (appended to its `/metrics`).
const operatorPorts = [settings.apiMetricsPort, settings.workerMetricsPort].filter((port): port is number => port !== null);
const coreMetricsAddress = operatorPorts.length > 0 ? await freeCoreMetricsAddress() : null;
installWorkerRuntime(logger, { coreMetricsAddress });
// Sandboxed runs need bubblewrap and socat: installed beside start-up when missing (never blocks it).
void ensureSandboxPackages(logger);

// The browser console is built (Vite, about a second) when missing or stale, beside the rest of start-up.
const consoleBundle = ensureConsoleBundle((message) => logger.info(message)).catch((error: unknown) => {
  logger.warn('the console could not be built; the API works without it', { err: error });
});

let devServer: DevServer | undefined;
try {
  let temporalAddress = settings.temporal.address;
  let webUi: string | null = null;
  if (!temporalAddress) {
    devServer = await startDevServer({ projectRoot, dataDir: settings.dataDir, cliPath: settings.temporal.cliPath, logger });
    temporalAddress = devServer.address;
    webUi = devServer.uiUrl;
  }
  const database = await openConfiguredDatabase(settings);
  const dependencies = loadSettingsDependencies(settings);
  const taskQueue = runtimeTaskQueue(settings);
  const runtime = await createRuntime({
    settings,
    logger,
    database,
    dependencies,
    temporal: { address: temporalAddress, namespace: settings.temporal.namespace, taskQueue },
    tracing,
  });
  const api = await startApiServer(
    await createAppDeps({
      settings,
      logger,
      database,
      runStarter: runtime.runStarter,
      scheduleBackend: runtime.scheduleBackend,
      dependencies,
      eventTail: runtime.eventTail,
      messageDeltas: runtime.messageDeltas,
      probes: { temporal: temporalProbe(runtime.client.client) },
    }),
  );
  const workerRunning = runtime.run();
  await consoleBundle;
  // One process: each operator port given serves the same metrics (API and worker) and probes.
  observeDatabasePool(() => database.poolStats());
  if (operatorPorts.length > 0) observeRuntimeState(database.db, logger);
  const operators = await Promise.all(
    operatorPorts.map((port) =>
      startOperatorServer({
        readiness: api.deps.readiness,
        port,
        host: settings.host,
        coreMetricsUrl: coreMetricsAddress ? `http://${coreMetricsAddress}/metrics` : null,
        onCoreMetricsFailure: (error) => logger.warn("the Temporal SDK's metrics could not be read", { err: error }),
      }),
    ),
  );

  const lines = [
    '',
    'Agent runtime service is running',
    `  API              ${api.url}/v1`,
    `  Console          ${api.url}/`,
    `  Temporal Web UI  ${webUi ?? `(your Temporal cluster's UI for namespace ${settings.temporal.namespace})`}`,
    `  Temporal         ${temporalAddress} (namespace ${settings.temporal.namespace}, task queue ${taskQueue})`,
    ...operators.map((operator) => `  Metrics          ${operator.url}/metrics`),
    `  Database         ${settings.databaseUrl ? 'PostgreSQL (DATABASE_URL)' : `embedded PGlite in ${path.join(settings.dataDir, 'pglite')}`}`,
    '',
  ];
  process.stdout.write(lines.join('\n') + '\n');

  let stopping = false;
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) process.exit(1);
    stopping = true;
    logger.info('stopping', { signal, graceMs: settings.shutdownGraceMs });
    // Reported not ready first, so load balancers stop sending work before the port closes.
    api.deps.readiness.drain();
    await sleep(settings.shutdownGraceMs);
    await api.close();
    await Promise.all(operators.map((operator) => operator.close()));
    await runtime.shutdown();
    await workerRunning.catch(() => {});
    await database.close();
    await devServer?.stop();
    await tracing?.shutdown().catch(() => {});
    process.exit(0);
  };
  process.on('SIGINT', (signal) => void stop(signal));
  process.on('SIGTERM', (signal) => void stop(signal));
  await workerRunning;
} catch (error) {
  logger.error('start failed', { err: error });
  process.stderr.write(`${(error as Error).message}\n`);
  await devServer?.stop().catch(() => {});
  process.exit(1);
}
