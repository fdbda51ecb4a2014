import type { RetentionSettings } from '../config/settings.ts';
import { deleteRetainedObjects, sweepDeletedProjectObjects, type ObjectStoreDeps, type ProjectSweepPosition } from '../services/operations/retention/index.ts';
import { purgeExpiredEvents } from '../services/operations/retention/index.ts';
import { purgeExpiredSessions } from '../services/operations/retention/index.ts';
import type { ServiceContext } from '../services/kernel/service-context.ts';
import { repeatTicks } from './repeat-ticks.ts';

/** The first sweep after a start comes sooner than the interval, so often-restarted workers still sweep. */
const FIRST_SWEEP_DELAY_MS = 60_000;
/** Between two ticks of a sweep that has work left: room for the run path between batches. */
export const RETENTION_BATCH_PAUSE_MS = 200;

/**
 * The pause after a tick that left work: twice as long as the tick took, so a draining sweep keeps
 * the database busy at most a third of the time. On a small host the run path shares the CPU with
 * the purge's cascading deletes; at half the time its p50 went 1.20× (bench/retention-purge.bench.ts).
 */
export const pauseAfterTick = (tickMs: number, minimumMs = RETENTION_BATCH_PAUSE_MS) => Math.max(minimumMs, Math.round(2 * tickMs));
/** A storage connection that failed is retried after this long. */
const FAILED_PROVIDER_RETRY_MS = 60 * 60 * 1000;
/** A session tree the sweep had to keep (a request held it, a delegated run is unsettled) is a candidate again after this long. */
const KEPT_SESSION_RETRY_MS = 10 * 60 * 1000;

/** What one tick did, and whether work is left (`more`: the next tick comes after a short pause). */
export type RetentionTickResult = {
  sessions: number;
  events: number;
  objects: number;
  deletedProjects: number;
  more: boolean;
};

/** Where a sweep is between ticks: the deleted-project sweep's position and the connections to leave alone for now. */
export type RetentionSweepState = {
  projectSweep: ProjectSweepPosition | null;
  /** When the deleted-project sweep (a listing per storage connection) may start its next pass. */
  nextProjectPassAt: number;
  failedProviders: Map<string, number>;
  keptSessions: Map<string, number>;
};

export const newRetentionSweepState = (): RetentionSweepState => ({
  projectSweep: null,
  nextProjectPassAt: 0,
  failedProviders: new Map(),
  keptSessions: new Map(),
});

/**
 * One bounded step of retention (docs/decisions/retention-sweep-batches.md): at most `batchSize` session
 * trees, `batchSize` events per project, `batchSize` objects of expired sessions and
 * `batchSize` objects of deleted projects (a new pass over the connections at most once per
 * `sweepIntervalMs`), in that order, each in its own short transactions (objects outside any).
 * Idempotent and restartable: several workers may tick at once.
 */
export async function runRetentionTick(
  ctx: ServiceContext,
  deps: ObjectStoreDeps,
  settings: Pick<RetentionSettings, 'sessionsMinutes' | 'eventsMinutes' | 'batchSize'> & { sweepIntervalMs?: number },
  state: RetentionSweepState = newRetentionSweepState(),
): Promise<RetentionTickResult> {
  const installation = { sessionsMinutes: settings.sessionsMinutes, eventsMinutes: settings.eventsMinutes };
  const now = Date.now();
  for (const [providerId, until] of state.failedProviders) if (until <= now) state.failedProviders.delete(providerId);
  for (const [sessionId, until] of state.keptSessions) if (until <= now) state.keptSessions.delete(sessionId);
  const skipProviders = new Set(state.failedProviders.keys());
  const fail = (providerIds: string[]) => providerIds.forEach((id) => state.failedProviders.set(id, now + FAILED_PROVIDER_RETRY_MS));

  const sessions = await purgeExpiredSessions(ctx, { installation, batchSize: settings.batchSize, skip: [...state.keptSessions.keys()] });
  for (const id of sessions.kept) state.keptSessions.set(id, now + KEPT_SESSION_RETRY_MS);
  const events = await purgeExpiredEvents(ctx, { installation, batchSize: settings.batchSize });
  const objects = await deleteRetainedObjects(ctx, deps, { maxDeletes: settings.batchSize, skipProviders });
  fail(objects.failedProviders);
  // Deleted projects' folders: a pass lists every connection, so a new pass starts at most once per
  // interval (a pass cut short by its budget continues on the next tick).
  let projects: { deleted: number; projects: number; next: ProjectSweepPosition | null } = { deleted: 0, projects: 0, next: null };
  if (state.projectSweep !== null || now >= state.nextProjectPassAt) {
    const pass = await sweepDeletedProjectObjects(ctx, deps, { maxDeletes: settings.batchSize, from: state.projectSweep, skipProviders });
    fail(pass.failedProviders);
    projects = pass;
    state.projectSweep = pass.next;
    if (pass.next === null) state.nextProjectPassAt = now + (settings.sweepIntervalMs ?? 0);
  }
  return {
    sessions: sessions.sessions,
    events: events.deleted,
    objects: objects.deleted + projects.deleted,
    deletedProjects: projects.projects,
    more: sessions.more || events.more || objects.more || projects.next !== null,
  };
}

/**
 * Runs retention in the worker: a tick every `sweepIntervalMs`, and while a tick reports work
 * left, the next one after a pause twice as long as the tick took (at least `pauseMs`) instead,
 * so a large backlog drains in bounded steps, the database busy with it at most a third of the time. A tick never throws: a failure is logged and the
 * next tick starts over. `stop()` resolves once a running tick ends.
 */
export function startRetentionSweeper(
  ctx: ServiceContext,
  deps: ObjectStoreDeps,
  settings: RetentionSettings,
  options: { firstDelayMs?: number; pauseMs?: number } = {},
): { stop(): Promise<void> } {
  const state = newRetentionSweepState();
  return repeatTicks(options.firstDelayMs ?? Math.min(settings.sweepIntervalMs, FIRST_SWEEP_DELAY_MS), async () => {
    const began = performance.now();
    try {
      const { more } = await runRetentionTick(ctx, deps, settings, state);
      return more ? pauseAfterTick(performance.now() - began, options.pauseMs) : settings.sweepIntervalMs;
    } catch (error) {
      state.projectSweep = null;
      ctx.logger.error('retention sweep failed', { err: error });
      return settings.sweepIntervalMs;
    }
  });
}
