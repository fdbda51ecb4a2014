import type { Settings } from '../config/settings.ts';

/**
 * Task queues. One queue carries every workflow and activity for now; callers ask here rather
 * than reading settings, so splitting a queue off later (say, for sandbox activities that need
 * special hosts) changes this file and its callers' arguments, not scattered strings.
 */

/** The queue the runtime worker polls and the API starts run workflows on (TEMPORAL_TASK_QUEUE). */
export function runtimeTaskQueue(settings: Pick<Settings, 'temporal'>): string {
  return settings.temporal.taskQueue;
}
