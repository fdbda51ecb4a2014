import type { AppDeps, Facade } from '../api/deps.ts';
import { createEventStreamPlaces } from '../api/event-stream-places.ts';
import type { Logger } from '../config/logger.ts';
import type { Settings } from '../config/settings.ts';
import { createApiKeyCache } from '../services/access/auth/index.ts';
import { LOCKS, type DatabaseHandle } from '../db/client.ts';
import { databaseProbes } from '../db/health.ts';
import { createReadiness, type Probe } from '../services/kernel/health/index.ts';
import { ensureDevelopmentTenant } from '../services/access/auth/index.ts';
import { ensureInitialOwner } from '../services/access/auth/index.ts';
import { ensureInstallation } from '../services/access/auth/index.ts';
import { createMessageDeltaBus, type MessageDeltaBus } from '../processes/message-delta-bus.ts';
import { createProjectEventTail, type ProjectEventTail } from '../processes/project-event-tail.ts';
import { createLoggingRunStarter } from '../services/runtime/runs/index.ts';
import type { RunStarter } from '../services/kernel/run-starter.ts';
import type { ScheduleBackend } from '../services/kernel/schedule-backend.ts';
import { systemClock, systemContext, type Clock } from '../services/kernel/service-context.ts';
import { loadSettingsDependencies, type SettingsDependencies } from './dependencies.ts';
import { anthropicFacade } from '../compat/anthropic/api/app.ts';
import { a2aDoor } from '../doors/a2a/api/app.ts';
import { mcpDoor } from '../doors/mcp/api/app.ts';

/**
 * The vendor-compatible APIs and the standard agent protocols this installation serves (remove a
 * line, and its folder, to drop one; settings switch the doors off without a rebuild).
 */
const FACADES: readonly Facade[] = [anthropicFacade, a2aDoor, mcpDoor];

export type AppDepsOptions = {
  settings: Settings;
  logger: Logger;
  database: DatabaseHandle;
  clock?: Clock;
  /** How committed runs reach the runtime; without one, runs wait for the worker's reconciler. */
  runStarter?: RunStarter;
  /** How schedules reach their Temporal Schedules; without one, the worker's reconciler keeps them and `trigger` is a 503. */
  scheduleBackend?: ScheduleBackend | null;
  /** Loaded once by the entry point (shared with the worker under `npm start`); else loaded here. */
  dependencies?: SettingsDependencies;
  /** The process's shared event tail when the worker runs in the same process (`npm start`). */
  eventTail?: ProjectEventTail;
  /** The process's live-output bus when the worker runs in the same process (`npm start`). */
  messageDeltas?: MessageDeltaBus;
  /** Readiness probes besides the database's (Temporal's, where the process starts runs through it). */
  probes?: Record<string, Probe>;
};

/**
 * The API process's composition root: everything api/app.ts mounts its routes with, wired once.
 * Starts the event tail and makes sure the installation's organization exists (with the
 * development principal, or hosted mode's initial owner).
 */
export async function createAppDeps(options: AppDepsOptions): Promise<AppDeps> {
  const { settings, logger, database } = options;
  const clock = options.clock ?? systemClock;
  const dependencies = options.dependencies ?? loadSettingsDependencies(settings);
  const eventTail = options.eventTail ?? createProjectEventTail({ database, logger });
  await eventTail.start();
  const messageDeltas = options.messageDeltas ?? createMessageDeltaBus({ database, logger });
  await messageDeltas.start();
  const startup = systemContext({ db: database.db, logger, clock });
  // One process at a time: API processes starting together would race to create the first rows.
  await database.exclusively(LOCKS.installation, async () => {
    if (settings.authMode === 'development') await ensureDevelopmentTenant({ ctx: startup });
    else await ensureInstallation(startup);
    if (settings.hosted) await ensureInitialOwner(startup, settings.hosted.initialOwnerSubject);
  });
  const runStarter = options.runStarter ?? createLoggingRunStarter(logger);
  const storagePolicy = { allowPrivateNetwork: settings.outboundAllowPrivateNetwork };
  const apiKeyCache = createApiKeyCache(clock);
  const readiness = createReadiness({ ...databaseProbes(database), ...options.probes });
  // One pool for every event stream this process serves, whichever API opens it.
  const eventStreamPlaces = createEventStreamPlaces(settings.limits);
  return {
    settings,
    logger,
    database,
    clock,
    eventTail,
    messageDeltas,
    eventStreamPlaces,
    runStarter,
    scheduleBackend: options.scheduleBackend ?? null,
    apiKeyCache,
    unsettledRunsLimit: settings.limits.projectUnsettledRuns,
    storagePolicy,
    readiness,
    facades: FACADES,
    ...dependencies,
  };
}
