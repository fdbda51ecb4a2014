import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { createLogger } from '../config/logger.ts';
import { parseSettingsOrExit, warnOfDeprecatedSettings } from '../config/settings.ts';
import { startTracing } from '../config/tracing.ts';
import { openConfiguredDatabase } from '../db/open.ts';
import { startApiServer } from '../api/server.ts';
import { startOperatorServer } from '../api/operator-server.ts';
import { observeDatabasePool } from '../services/kernel/metrics/index.ts';
import { createAppDeps } from './app-deps.ts';
import { loadSettingsDependencies } from './dependencies.ts';
import { connectTemporal } from '../temporal/client.ts';
import { startDevServer } from '../temporal/dev-server.ts';
import { temporalProbe } from '../temporal/health.ts';
import { createTemporalRunStarter } from '../temporal/run-starter.ts';
import { createTemporalScheduleBackend } from '../temporal/schedules.ts';
import { runtimeTaskQueue } from '../temporal/task-queues.ts';

/**
 * `npm run api`: the HTTP API process alone (scale it horizontally beside `npm run worker`). It
 * starts run workflows and keeps schedules' Temporal Schedules through Temporal (TEMPORAL_ADDRESS,
 * else the local dev server).
 */

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const settings = parseSettingsOrExit();
// First, so every span below is recorded (nothing is started when no OTLP endpoint is set).
const tracing = startTracing({ enabled: settings.tracing.enabled, serviceName: 'agent-runtime-api' });

const logger = createLogger({ level: settings.logLevel, base: { process: 'api' } });
warnOfDeprecatedSettings(settings, logger);
const database = await openConfiguredDatabase(settings);
const devServer = settings.temporal.address
  ? null
  : await startDevServer({ projectRoot, dataDir: settings.dataDir, cliPath: settings.temporal.cliPath, logger });
const address = settings.temporal.address ?? devServer!.address;
const temporal = await connectTemporal({ address, namespace: settings.temporal.namespace, security: settings.temporal.security, tracing });
const runStarter = createTemporalRunStarter({ client: temporal.client, taskQueue: runtimeTaskQueue(settings), logger });
const scheduleBackend = createTemporalScheduleBackend({ client: temporal.client, taskQueue: runtimeTaskQueue(settings), logger });
const api = await startApiServer(
  await createAppDeps({
    settings,
    logger,
    database,
    runStarter,
    scheduleBackend,
    dependencies: loadSettingsDependencies(settings),
    probes: { temporal: temporalProbe(temporal.client) },
  }),
);
observeDatabasePool(() => database.poolStats());
// Metrics (and the probes again) on an operator port, never on the public one.
const operator =
  settings.apiMetricsPort === null ? null : await startOperatorServer({ readiness: api.deps.readiness, port: settings.apiMetricsPort, host: settings.host });
logger.info('api listening', { url: `${api.url}/v1`, console: `${api.url}/`, ...(operator ? { metrics: `${operator.url}/metrics` } : {}) });

const stop = async (signal: NodeJS.Signals) => {
  logger.info('api stopping', { signal, graceMs: settings.shutdownGraceMs });
  // Reported not ready first, so load balancers stop sending work before the port closes.
  api.deps.readiness.drain();
  await sleep(settings.shutdownGraceMs);
  await api.close();
  await operator?.close();
  await temporal.close();
  await database.close();
  await devServer?.stop();
  await tracing?.shutdown().catch(() => {});
  process.exit(0);
};
process.on('SIGINT', (signal) => void stop(signal));
process.on('SIGTERM', (signal) => void stop(signal));
