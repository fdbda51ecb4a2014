import { randomUUID } from 'node:crypto';
import { inject } from 'vitest';
import type { PlatformToolHandler } from '../../activities/platform-tools/registry.ts';
import type { DestinationLookup } from '../../adapters/outbound/pinned-post.ts';
import type { Settings } from '../../config/settings.ts';
import type { CredentialKeyring } from '../../services/kernel/credentials/index.ts';
import { createRuntime, type Runtime } from '../../scripts/runtime.ts';
import type { RunStarter } from '../../services/kernel/run-starter.ts';
import type { ScheduleBackend } from '../../services/kernel/schedule-backend.ts';
import type { RunWakeSignal } from '../../domain/runs/workflow.ts';
import type { TestApp } from './app.ts';

/** A run starter whose target is set later (the runtime needs the app's deps, the app the starter). */
export function deferredRunStarter(): RunStarter & { target: RunStarter | null } {
  const starter = {
    target: null as RunStarter | null,
    start: (run: Parameters<RunStarter['start']>[0]) => (starter.target ? starter.target.start(run) : Promise.resolve()),
    requestCancellation: (runId: string) => (starter.target ? starter.target.requestCancellation(runId) : Promise.resolve()),
    notify: (runId: string, signal: RunWakeSignal) => (starter.target ? starter.target.notify(runId, signal) : Promise.resolve()),
  };
  return starter;
}

/**
 * A schedule backend whose target is set later, like `deferredRunStarter`: until the runtime
 * starts, rows wait (apply and remove fail, so they stay behind for its reconciler), nothing can
 * be triggered and no next firings are known.
 */
export function deferredScheduleBackend(): ScheduleBackend & { target: ScheduleBackend | null } {
  const notYet = () => Promise.reject(new Error('no runtime yet'));
  const backend = {
    target: null as ScheduleBackend | null,
    apply: (schedule: Parameters<ScheduleBackend['apply']>[0]) => (backend.target ? backend.target.apply(schedule) : notYet()),
    remove: (scheduleId: string) => (backend.target ? backend.target.remove(scheduleId) : notYet()),
    trigger: (scheduleId: string) => (backend.target ? backend.target.trigger(scheduleId) : notYet()),
    nextFirings: (scheduleIds: readonly string[]) => (backend.target ? backend.target.nextFirings(scheduleIds) : Promise.resolve(new Map())),
  };
  return backend;
}

/**
 * The real worker side for a test app: a Temporal worker with every activity on its own task
 * queue of the run's dev server, plus the Temporal run starter and reconciler.
 */
export async function startTestRuntime(
  t: TestApp,
  starter: ReturnType<typeof deferredRunStarter>,
  options: {
    platformTools?: Record<string, PlatformToolHandler>;
    /** Settings of the worker when they differ from the app's (say, production webhook rules). */
    settings?: Settings;
    /** The worker's credential keyring when it differs from the API's. */
    keyring?: CredentialKeyring;
    webhookLookup?: DestinationLookup;
    /** The app's schedule backend, pointed at this runtime's (its schedules fire on this runtime's queue). */
    scheduleBackend?: ReturnType<typeof deferredScheduleBackend>;
  } = {},
): Promise<Runtime & { running: Promise<void>; taskQueue: string }> {
  const { address, namespace } = inject('temporal');
  const taskQueue = `test-${randomUUID()}`;
  const runtime = await createRuntime({
    settings: options.settings ?? t.deps.settings,
    logger: t.deps.logger,
    database: t.database,
    dependencies: { keyring: options.keyring ?? t.deps.keyring, deploymentPresets: t.deps.deploymentPresets, sandboxSnapshots: t.deps.sandboxSnapshots },
    temporal: { address, namespace, taskQueue },
    clock: t.deps.clock,
    reconcileIntervalMs: 500,
    scheduleReconcileIntervalMs: 1_000,
    platformTools: options.platformTools ?? {},
    webhookRefreshIntervalMs: 1_000,
    // One bus with the app's: in-process on PGlite, and the API's view of the turns either way.
    messageDeltas: t.deps.messageDeltas,
    ...(options.webhookLookup ? { webhookLookup: options.webhookLookup } : {}),
  });
  starter.target = runtime.runStarter;
  if (options.scheduleBackend) options.scheduleBackend.target = runtime.scheduleBackend;
  const running = runtime.run();
  return Object.assign(runtime, { running, taskQueue });
}
