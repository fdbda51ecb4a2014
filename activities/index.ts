import { createRunActivities, type RunActivityDeps } from './run-activities.ts';

export type ActivityDeps = RunActivityDeps;

/** Every activity the runtime worker registers, wired once per worker process. */
export function createActivities(deps: ActivityDeps) {
  return { ...createRunActivities(deps) };
}
