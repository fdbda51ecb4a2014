// The verbs and read models of operations/schedules/ that other folders use; nothing else here is importable from outside (test/architecture.test.ts).
export { createSchedule } from './create.ts';
export { deleteSchedule } from './delete.ts';
export { fireSchedule } from './fire.ts';
export { firingSettled } from './firing-progress.ts';
export { listScheduleFirings } from './list-firings.ts';
export { getSchedule, listSchedules } from './list.ts';
export type { ScheduleWriteDeps } from './minimum-interval.ts';
export { setSchedulePaused } from './set-paused.ts';
export { syncAfterCommit, syncSchedule } from './sync.ts';
export { triggerSchedule } from './trigger.ts';
export { updateSchedule } from './update.ts';
