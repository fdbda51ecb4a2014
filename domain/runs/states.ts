/**
 * Run states (spec 1 "States and transitions — Run"). A session's `status` takes these values.
 */
export const RUN_STATES = [
  'queued',
  'running',
  'waiting_for_tool',
  'waiting_for_approval',
  'retry_scheduled',
  'completed',
  'failed',
  'cancelled',
  'timed_out',
] as const;
export type RunState = (typeof RUN_STATES)[number];

/** A session's `status`: its latest run's state, or `idle` before its first run. */
export const SESSION_STATUSES = [...RUN_STATES, 'idle'] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];

export const SETTLED_STATES = ['completed', 'failed', 'cancelled', 'timed_out'] as const;
export type SettledRunState = (typeof SETTLED_STATES)[number];

export function isSettled(state: RunState): state is SettledRunState {
  return (SETTLED_STATES as readonly string[]).includes(state);
}

const ACTIVE: readonly RunState[] = ['running', 'waiting_for_tool', 'waiting_for_approval', 'retry_scheduled'];

/**
 * The transitions the run workflow may make. `queued` is admitted to `running` (or settles
 * without running when cancelled or out of time); the active states move among themselves and to
 * any settled state; settled states are final.
 */
export function canTransition(from: RunState, to: RunState): boolean {
  if (isSettled(from)) return false;
  if (from === to) return false;
  if (from === 'queued') return to === 'running' || to === 'cancelled' || to === 'timed_out' || to === 'failed';
  if (to === 'queued') return false;
  return ACTIVE.includes(to) || isSettled(to);
}
