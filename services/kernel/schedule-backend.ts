import type { Executor } from '../../db/client.ts';
import type { ScheduleProjection } from '../../domain/schedules/workflow.ts';

/**
 * How schedule rows reach Temporal (implemented by temporal/schedules.ts): each schedule is
 * projected onto one Temporal Schedule. Verbs never call it inside a transaction; `apply` and
 * `remove` are idempotent, so the API's after-commit sync and the worker's reconciler
 * (services/operations/schedules/sync.ts) may both call them.
 */
export type ScheduleBackend = {
  /** Makes the Temporal Schedule match `schedule` (creating it when missing). */
  apply(schedule: ScheduleProjection): Promise<void>;
  /** Deletes the Temporal Schedule; one that does not exist is fine. */
  remove(scheduleId: string): Promise<void>;
  /** Fires once now, whatever the overlap policy says; `missing` when Temporal has no such Schedule. */
  trigger(scheduleId: string): Promise<'triggered' | 'missing'>;
  /**
   * The next times each Temporal Schedule will fire (soonest first), by schedule id; a schedule
   * Temporal does not know, or could not describe in time, is absent.
   */
  nextFirings(scheduleIds: readonly string[]): Promise<Map<string, Date[]>>;
};

/**
 * What schedule verbs need besides their context: the backend, or null in a process that does
 * not reach Temporal (then rows wait for the worker's reconciler, and `trigger` is a 503), and
 * the pool the after-commit sync reads and marks rows with (never the request's transaction).
 */
export type ScheduleDeps = { scheduleBackend: ScheduleBackend | null; database: Executor };
