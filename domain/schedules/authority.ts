import type { Scope } from '../scopes.ts';
import type { ScheduleMemoryStore, ScheduleTarget } from './inputs.ts';

/**
 * Who a schedule acts as, and what that takes
 * (docs/decisions/schedule-acting-principal.md). One rule for creating, changing and triggering a schedule and for each firing:
 * a firing makes a run (`run:create`), and for `new_session` a session (`session:write`).
 */
export function scopesToFire(target: ScheduleTarget): Scope[] {
  return target === 'new_session' ? ['run:create', 'session:write'] : ['run:create'];
}

/** What a schedule does at each firing: who changes any of it becomes the principal its firings act as. */
export type ScheduleWork = {
  agentId: string;
  agentVersionId: string | null;
  target: ScheduleTarget;
  sessionId: string | null;
  message: string;
  files: ReadonlyArray<{ uploadId: string }>;
  /** The memory stores each new session attaches: what its runs may read and write. */
  memoryStores: ReadonlyArray<ScheduleMemoryStore>;
};

/**
 * Whether a change alters what the schedule does (its message, files, agent or version, target
 * or session, or its memory stores: which stores the runs may read and write, with what access and
 * instructions), compared by value and in order: a change of only its name, timing, overlap,
 * `ifBusy` or catch-up window (when and how often, not what) leaves the acting principal as it
 * was. The turns of a `session` target run the session's own agent version, so there its agent
 * fields (kept for reading) change nothing.
 */
export function changesWork(before: ScheduleWork, after: ScheduleWork): boolean {
  const agentMatters = after.target === 'new_session';
  return (
    (agentMatters && (before.agentId !== after.agentId || before.agentVersionId !== after.agentVersionId)) ||
    before.target !== after.target ||
    before.sessionId !== after.sessionId ||
    before.message !== after.message ||
    before.files.length !== after.files.length ||
    before.files.some((file, index) => file.uploadId !== after.files[index]!.uploadId) ||
    before.memoryStores.length !== after.memoryStores.length ||
    before.memoryStores.some((store, index) => {
      const other = after.memoryStores[index]!;
      return store.storeId !== other.storeId || store.access !== other.access || store.instructions !== other.instructions;
    })
  );
}
