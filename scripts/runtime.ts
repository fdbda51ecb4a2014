import type { AdmissionGate } from '../services/runtime/runs/index.ts';
import { createActivities } from '../activities/index.ts';
import { createSandboxBrowsers } from '../activities/sandbox/browser/browser-tools.ts';
import { createLocalSandboxDriver } from '../activities/sandbox/local/driver.ts';
import type { DestinationLookup } from '../adapters/outbound/pinned-post.ts';
import { loadPlatformToolModules } from '../activities/platform-tools/modules.ts';
import type { PlatformToolHandler } from '../activities/platform-tools/registry.ts';
import type { Logger } from '../config/logger.ts';
import type { Settings } from '../config/settings.ts';
import type { DatabaseHandle } from '../db/client.ts';
import { systemClock, type Clock, systemContext } from '../services/kernel/service-context.ts';
import { createMessageDeltaBus, type MessageDeltaBus } from '../processes/message-delta-bus.ts';
import { createProjectEventTail, type ProjectEventTail } from '../processes/project-event-tail.ts';
import { createWebhookDispatcher } from '../processes/webhook-dispatcher.ts';
import { startRunReconciler } from '../processes/reconcile-queued-runs.ts';
import { startOrphanedUploadSweeper } from '../processes/sweep-orphaned-uploads.ts';
import { startRetentionSweeper } from '../processes/retention-sweeper.ts';
import { startScheduleReconciler } from '../processes/reconcile-schedules.ts';
import { Client } from '@temporalio/client';
import { connectTemporal, type TemporalClientHandle } from '../temporal/client.ts';
import { RUN_SIGNALS } from '../domain/runs/workflow.ts';
import { createTemporalRunRecovery } from '../temporal/run-recovery.ts';
import { createTemporalRunStarter } from '../temporal/run-starter.ts';
import { createTemporalScheduleBackend } from '../temporal/schedules.ts';
import { createTemporalWebhookWaker } from '../temporal/webhook-waker.ts';
import { createRuntimeWorker, type RuntimeWorker } from '../temporal/worker.ts';
import type { SettingsDependencies } from './dependencies.ts';
import type { Tracing } from '../config/tracing.ts';
import { inNewTrace, untraced } from '../adapters/tracing.ts';
import { createRunTraceContexts } from '../temporal/run-trace-context.ts';
import { tracingClientInterceptors } from '../temporal/tracing.ts';

export type RuntimeOptions = {
  settings: Settings;
  logger: Logger;
  database: DatabaseHandle;
  /** Loaded once by the entry point (scripts/dependencies.ts) and shared with the API. */
  dependencies: SettingsDependencies;
  temporal: { address: string; namespace: string; taskQueue: string };
  clock?: Clock;
  /** How often queued runs without a workflow are (re)started. */
  reconcileIntervalMs?: number;
  /** How often schedules whose Temporal Schedule is behind their row are brought in line. */
  scheduleReconcileIntervalMs?: number;
  /** How often uploads no attachment references are swept from `run-files/` (hourly by default). */
  orphanedUploadSweepIntervalMs?: number;
  /** Handlers of platform-owned tools; none by default (such tools then fail visibly). */
  platformTools?: Record<string, PlatformToolHandler>;
  /** The process's shared event tail (`npm start` shares it with the API); else one is created. */
  eventTail?: ProjectEventTail;
  /** The process's live-output bus (`npm start` shares it with the API); else one that only publishes. */
  messageDeltas?: MessageDeltaBus;
  /** DNS for webhook destinations (tests map names to local receivers); the system resolver by default. */
  webhookLookup?: DestinationLookup;
  /** How often the webhook dispatcher re-reads the webhooks table besides its NOTIFY wake-ups. */
  webhookRefreshIntervalMs?: number;
  /** The process's tracing (config/tracing.ts, started by the entry point); absent or null: off. */
  tracing?: Tracing | null;
};

export type Runtime = {
  worker: RuntimeWorker;
  client: TemporalClientHandle;
  runStarter: ReturnType<typeof createTemporalRunStarter>;
  /** Schedules' Temporal Schedules (the API of `npm start` shares it). */
  scheduleBackend: ReturnType<typeof createTemporalScheduleBackend>;
  eventTail: ProjectEventTail;
  messageDeltas: MessageDeltaBus;
  /** Polls until `shutdown()`. */
  run(): Promise<void>;
  /** Stops the reconcilers and the upload and retention sweepers, drains the worker, closes the client. */
  shutdown(): Promise<void>;
};

/**
 * The worker side of the service, wired once: the Temporal worker with every activity, the
 * Temporal run starter, the reconciler that starts queued runs whose workflow is missing, the
 * one that keeps schedules' Temporal Schedules in line with their rows, the sweep of uploads no
 * attachment references, and retention.
 * `npm run worker`, `npm start` and the integration tests all build it here.
 */
/** SVC_PLATFORM_TOOL_MODULES named something the worker cannot register: one line per problem. */
export class PlatformToolModuleError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`The worker cannot start: ${problems.length} problem(s) with its platform tools:\n${problems.map((line) => `  ${line}`).join('\n')}`);
    this.name = 'PlatformToolModuleError';
    this.problems = problems;
  }
}

export async function createRuntime(options: RuntimeOptions): Promise<Runtime> {
  const { settings, logger, database, temporal } = options;
  const clock = options.clock ?? systemClock;
  const eventTail = options.eventTail ?? createProjectEventTail({ database, logger });
  // The worker only publishes: it needs no LISTEN of its own (API processes keep the turns' text).
  const messageDeltas = options.messageDeltas ?? createMessageDeltaBus({ database, logger });
  // Sandbox egress passes the address policy webhooks and MCP pass, and never reaches this
  // service's own ports (activities/sandbox/local/egress-guard.ts).
  const egressGuard = { allowPrivateNetwork: settings.outboundAllowPrivateNetwork, protectedPorts: servicePorts(settings, temporal.address) };
  // Workspaces live under the data dir, which the sandbox user must be able to traverse.
  const sandboxDriver = createLocalSandboxDriver({ dataDir: settings.dataDir, egressGuard });
  const sandboxBrowsers = createSandboxBrowsers({ logger: logger.child({ component: 'sandbox-browser' }), egressGuard });
  // An operator's platform tools (SVC_PLATFORM_TOOL_MODULES); any problem stops the start.
  const modules = await loadPlatformToolModules(settings.platformToolModules, {
    cwd: process.cwd(),
    allowPrivateNetwork: settings.outboundAllowPrivateNetwork,
    ...(options.webhookLookup ? { lookup: options.webhookLookup } : {}),
  });
  if (modules.problems.length > 0) throw new PlatformToolModuleError(modules.problems);
  const platformTools = { ...modules.handlers, ...options.platformTools };
  if (Object.keys(platformTools).length > 0) logger.info('platform tools registered', { tools: Object.keys(platformTools).sort() });
  const tracing = options.tracing ?? null;
  const client = await connectTemporal({ address: temporal.address, namespace: temporal.namespace, security: settings.temporal.security, tracing });
  // Runs waiting for a place in their project's running-runs limit are woken by signal.
  const waker = createTemporalRunStarter({ client: client.client, taskQueue: temporal.taskQueue, logger });
  const gate: AdmissionGate = {
    runningRunsLimit: settings.limits.projectRunningRuns,
    wake: (runId) => waker.notify(runId, RUN_SIGNALS.capacityFreed),
    // A pending turn's run, started as the run before it settles: a trace of its own, not a
    // part of the settling run's.
    start: (run) => inNewTrace(() => waker.start(run)),
  };
  // Schedules fire on this worker's queue; their firings queue runs as requests do.
  const scheduleBackend = createTemporalScheduleBackend({ client: client.client, taskQueue: temporal.taskQueue, logger });
  const activities = createActivities({
    gate,
    runStarter: waker,
    unsettledRunsLimit: settings.limits.projectUnsettledRuns,
    delegationParallelism: settings.limits.runDelegationParallelism,
    scheduleBackend,
    runRecovery: createTemporalRunRecovery({ client: client.client, logger }),
    database,
    platformTools,
    keyring: options.dependencies.keyring,
    modelBaseUrls: settings.modelBaseUrls,
    deploymentPresets: options.dependencies.deploymentPresets,
    logger,
    clock,
    outboundAllowPrivateNetwork: settings.outboundAllowPrivateNetwork,
    webhookBatchGatherMs: settings.webhookBatchGatherMs,
    currency: settings.currency,
    eventTail,
    messageDeltas,
    sandboxDriver,
    sandboxBrowsers,
    sandboxSnapshots: options.dependencies.sandboxSnapshots,
    ...(options.webhookLookup ? { webhookLookup: options.webhookLookup } : {}),
    ...(tracing ? { runTraceContext: createRunTraceContexts({ client: client.client }) } : {}),
  });
  const worker = await createRuntimeWorker({ ...temporal, logger, activities, security: settings.temporal.security, tracing });
  // Runs start on the worker's own connection, eagerly: the API and this worker share the process
  // under `npm start`, so a new run's first workflow task skips the task queue.
  const interceptors = tracingClientInterceptors(tracing);
  const eagerClient = new Client({ connection: worker.connection, namespace: temporal.namespace, ...(interceptors ? { interceptors } : {}) });
  const runStarter = createTemporalRunStarter({ client: eagerClient, taskQueue: temporal.taskQueue, logger, eagerStart: true });
  const webhookDispatcher = createWebhookDispatcher({
    database,
    eventTail,
    logger,
    // Wake-up hints are not traced: one trace per commit hint would say nothing (each batch's POST
    // joins its run's trace instead, activities/webhooks/deliver-batch.ts).
    wake: untracedWake(createTemporalWebhookWaker({ client: client.client, taskQueue: temporal.taskQueue })),
    ...(options.webhookRefreshIntervalMs ? { refreshIntervalMs: options.webhookRefreshIntervalMs } : {}),
  });
  let reconciler: { stop(): void } | null = null;
  let scheduleReconciler: { stop(): Promise<void> } | null = null;
  let uploadSweeper: { stop(): Promise<void> } | null = null;
  let retentionSweeper: { stop(): Promise<void> } | null = null;
  return {
    worker,
    client,
    runStarter,
    scheduleBackend,
    eventTail,
    messageDeltas,
    async run() {
      const ctx = systemContext({ db: database.db, logger, clock });
      reconciler = startRunReconciler(ctx, runStarter, options.reconcileIntervalMs);
      scheduleReconciler = startScheduleReconciler(ctx, scheduleBackend, options.scheduleReconcileIntervalMs);
      // Storage endpoints follow the webhooks' address policy and DNS seam.
      const storagePolicy = { allowPrivateNetwork: settings.outboundAllowPrivateNetwork, ...(options.webhookLookup ? { lookup: options.webhookLookup } : {}) };
      uploadSweeper = startOrphanedUploadSweeper(
        ctx,
        { keyring: options.dependencies.keyring, storagePolicy },
        { intervalMs: options.orphanedUploadSweepIntervalMs },
      );
      // Retention (docs/decisions/retention-sweep-batches.md): expired sessions, events and objects, deleted projects' objects.
      retentionSweeper = startRetentionSweeper(ctx, { keyring: options.dependencies.keyring, storagePolicy }, settings.retention);
      const running = worker.run();
      running.catch(() => {}); // observed by the caller; marked handled while we start the rest
      await eventTail.start();
      await webhookDispatcher.start();
      return running;
    },
    async shutdown() {
      reconciler?.stop();
      await scheduleReconciler?.stop();
      await uploadSweeper?.stop();
      await retentionSweeper?.stop();
      await webhookDispatcher.stop();
      await worker.shutdown();
      await sandboxBrowsers.close();
      await sandboxDriver.close();
      await eventTail.stop();
      await client.close();
    },
  };
}

function untracedWake<A extends unknown[]>(wake: (...args: A) => Promise<void>): (...args: A) => Promise<void> {
  return (...args) => untraced(() => wake(...args));
}

/** The ports this service listens or connects on: the API, Temporal's frontend, PostgreSQL. */
function servicePorts(settings: Settings, temporalAddress: string): number[] {
  const ports = [settings.port, portOf(`tcp://${temporalAddress}`, 7233)];
  if (settings.databaseUrl) ports.push(portOf(settings.databaseUrl, 5432));
  return [...new Set(ports.filter((port) => port > 0))];
}

function portOf(url: string, fallback: number): number {
  try {
    const port = new URL(url).port;
    return port === '' ? fallback : Number(port);
  } catch {
    return fallback;
  }
}
