import { patched } from '@temporalio/workflow';

/**
 * The `patched()` id of the run workflow's step results that carry what the workflow decides on,
 * which older histories lack:
 * - admission's `settlesOnReply`: a run without a workspace settles in its final reply's model call;
 * - the turn's progress (and the queued delegation) in the results of recording a turn's calls and
 *   of a delegation's finish: no step of their own to read it;
 * - `waiting: false` from entering a wait when nothing blocks the run any more: it reads again.
 *
 * A run started now records the marker at its first branch (one marker, and the one
 * `TemporalChangeVersion` upsert Temporal adds to it, per run). Histories recorded after a change
 * but before the marker existed carry the change's field, and are told by it, so every golden
 * history replays as it ran. To drop the old paths once no run from before the marker can still
 * be open: `deprecatePatch(STEP_RESULTS_PATCH)` in one release, then delete them and the call.
 */
export const STEP_RESULTS_PATCH = 'step-results-decide';

/**
 * Whether this run takes the changed path: a new run does; a replayed one did when its history
 * has the marker or the step's recorded result carries the change's field (`recorded`).
 */
export function decidedByResult(recorded: boolean): boolean {
  return patched(STEP_RESULTS_PATCH) || recorded;
}
