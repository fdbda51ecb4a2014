// The verbs and read models of operations/retention/ that other folders use; nothing else here is importable from outside (test/architecture.test.ts).
export { deleteRetainedObjects, sweepDeletedProjectObjects } from './delete-objects.ts';
export type { ObjectStoreDeps, ProjectSweepPosition } from './delete-objects.ts';
export { purgeExpiredEvents } from './purge-events.ts';
export { purgeExpiredSessions } from './purge-sessions.ts';
