import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { createLogger } from '../config/logger.ts';
import { parseSettingsOrExit } from '../config/settings.ts';
import { openConfiguredDatabase } from '../db/open.ts';
import { startApiServer } from '../api/server.ts';
import { createAppDeps } from './app-deps.ts';
import { loadSettingsDependencies } from './dependencies.ts';
import { startDevServer, type DevServer } from '../temporal/dev-server.ts';
import { temporalProbe } from '../temporal/health.ts';
import { runtimeTaskQueue } from '../temporal/task-queues.ts';
import { installWorkerRuntime } from '../temporal/worker.ts';
import { ensureSandboxPackages } from './system-packages.ts';
import { ensureConsoleBundle } from '../console/build.ts';
import { createRuntime } from './runtime.ts';

/**
 * `npm start`: the whole service in one process for a developer — the API, the Temporal worker,
 * embedded PGlite (unless DATABASE_URL is set) and a local Temporal dev server from
 * temporal-dev.yaml (unless TEMPORAL_ADDRESS is set). Prints where everything is.
 */

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const settings = parseSettingsOrExit();

const logger = createLogger({ level: settings.logLevel, base: { process: 'start' } });
installWorkerRuntime(logger);
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
  });
  const api = await startApiServer(
    await createAppDeps({ settings, logger, database, runStarter: runtime.runStarter, dependencies, eventTail: runtime.eventTail, messageDeltas: runtime.messageDeltas, probes: { temporal: temporalProbe(runtime.client.client) } }),
  );
  const workerRunning = runtime.run();
  await consoleBundle;

  const lines = [
    '',
    'Agent runtime service is running',
    `  API              ${api.url}/v1`,
    `  Console          ${api.url}/`,
    `  Temporal Web UI  ${webUi ?? `(your Temporal cluster's UI for namespace ${settings.temporal.namespace})`}`,
    `  Temporal         ${temporalAddress} (namespace ${settings.temporal.namespace}, task queue ${taskQueue})`,
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
    await runtime.shutdown();
    await workerRunning.catch(() => {});
    await database.close();
    await devServer?.stop();
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
