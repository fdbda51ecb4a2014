import type { Hono } from 'hono';
import type { AppEnv } from './env.ts';
import type { Settings } from '../config/settings.ts';
import type { Logger } from '../config/logger.ts';
import type { DatabaseHandle } from '../db/client.ts';
import type { Clock } from '../services/kernel/service-context.ts';
import type { ApiKeyCache } from '../services/access/auth/index.ts';
import type { CredentialKeyring } from '../services/kernel/credentials/index.ts';
import type { MessageDeltaBus } from '../processes/message-delta-bus.ts';
import type { ProjectEventTail } from '../processes/project-event-tail.ts';
import type { Snapshot } from '../domain/sandbox/snapshot-registry.ts';
import type { DeploymentPreset } from '../services/configuration/model-presets/index.ts';
import type { Readiness } from '../services/kernel/health/index.ts';
import type { RunStarter } from '../services/kernel/run-starter.ts';
import type { ScheduleBackend } from '../services/kernel/schedule-backend.ts';
import type { StorageEndpointPolicy } from '../services/configuration/storage-providers/index.ts';
import type { EventStreamPlaces } from './event-stream-places.ts';

/** Everything the API process builds once (scripts/app-deps.ts) and api/app.ts hands to route modules. */
export type AppDeps = {
  settings: Settings;
  logger: Logger;
  database: DatabaseHandle;
  clock: Clock;
  keyring: CredentialKeyring;
  /** API keys authenticated in the last second (services/access/auth/api-key-cache.ts). */
  apiKeyCache: ApiKeyCache;
  eventTail: ProjectEventTail;
  /** Live model output of the turns being streamed, for the session streams' `deltas=true`. */
  messageDeltas: MessageDeltaBus;
  /** The places of the process's open SSE streams, one pool for the native and the compatible APIs (SVC_EVENT_STREAMS_PER_*). */
  eventStreamPlaces: EventStreamPlaces;
  /** SVC_DEPLOYMENT_PRESETS_FILE, validated once at start. */
  deploymentPresets: readonly DeploymentPreset[];
  /** SVC_SANDBOX_SNAPSHOTS_FILE (or the built-in snapshot), validated once at start. */
  sandboxSnapshots: readonly Snapshot[];
  /** Wakes the runtime for committed runs (Temporal in the worker setup; a logger otherwise). */
  runStarter: RunStarter;
  /** Keeps schedules' Temporal Schedules (null: the worker's reconciler does, and `trigger` is a 503). */
  scheduleBackend: ScheduleBackend | null;
  /** SVC_PROJECT_UNSETTLED_RUNS_LIMIT: the quota every run the API queues is checked against. */
  unsettledRunsLimit: number | null;
  /** Storage endpoints follow the webhooks' address policy (SVC_OUTBOUND_ALLOW_PRIVATE_NETWORK). */
  storagePolicy: StorageEndpointPolicy;
  /** `GET /readyz`: the database, its migrations and (when the process talks to it) Temporal; draining after SIGTERM. */
  readiness: Readiness;
  /** Vendor-compatible APIs mounted beside `/v1`, each one removable module (compat/<vendor>/); the composition root lists them. */
  facades?: readonly Facade[];
};

/** A vendor-compatible API: its own routes, auth and errors, mounted at `path` over the same deps. */
export type Facade = { path: string; routes: (deps: AppDeps) => Hono<AppEnv> };
