/**
 * The timing waterfall of a run, derived from what Postgres already holds: the run's own
 * timestamps and its model invocations. Nothing is stored for it, so it can never disagree with
 * the rows it is drawn from.
 *
 * Entries per run, in this order: `queue` (created → admitted, or → settled when the run settled
 * without being admitted), `execution` (admitted → settled) once admitted, then one
 * `model_invocation` per provider attempt by start time. `entrySequence` numbers them from 1 per
 * run; new entries only ever append (invocations start after admission, in start order), so a
 * sequence keeps naming the same entry and works as a paging cursor.
 */

export type TimelineRun = {
  id: string;
  state: string;
  createdAt: Date;
  admittedAt: Date | null;
  settledAt: Date | null;
};

export type TimelineInvocation = {
  id: string;
  runId: string;
  turnId: string;
  attempt: number;
  status: string;
  finishReason: string | null;
  errorCode: string | null;
  startedAt: Date;
  completedAt: Date | null;
};

export type TimelineEntry = {
  entrySequence: number;
  runId: string;
  kind: 'queue' | 'execution' | 'model_invocation';
  /** `modelInvocationId` for model invocations; null for the run's own phases. */
  modelInvocationId: string | null;
  turnId: string | null;
  attempt: number | null;
  /** The run state (run phases) or the invocation status (`started`, `succeeded`, `failed`). */
  status: string;
  finishReason: string | null;
  errorCode: string | null;
  startedAt: string;
  /** Null while the phase or call is still going on. */
  completedAt: string | null;
  durationMs: number | null;
};

const iso = (date: Date | null) => (date ? date.toISOString() : null);
const duration = (start: Date, end: Date | null) => (end ? Math.max(0, end.getTime() - start.getTime()) : null);

/** The run's entries; `invocations` may be given in any order and may include other runs'. */
export function buildRunTimeline(run: TimelineRun, invocations: readonly TimelineInvocation[]): TimelineEntry[] {
  const entries: Array<Omit<TimelineEntry, 'entrySequence'>> = [];
  const queueEnd = run.admittedAt ?? run.settledAt;
  entries.push({
    runId: run.id,
    kind: 'queue',
    modelInvocationId: null,
    turnId: null,
    attempt: null,
    status: run.admittedAt ? 'admitted' : run.state,
    finishReason: null,
    errorCode: null,
    startedAt: run.createdAt.toISOString(),
    completedAt: iso(queueEnd),
    durationMs: duration(run.createdAt, queueEnd),
  });
  if (run.admittedAt) {
    entries.push({
      runId: run.id,
      kind: 'execution',
      modelInvocationId: null,
      turnId: null,
      attempt: null,
      status: run.state,
      finishReason: null,
      errorCode: null,
      startedAt: run.admittedAt.toISOString(),
      completedAt: iso(run.settledAt),
      durationMs: duration(run.admittedAt, run.settledAt),
    });
  }
  const own = invocations
    .filter((invocation) => invocation.runId === run.id)
    .sort((a, b) => a.startedAt.getTime() - b.startedAt.getTime() || a.turnId.localeCompare(b.turnId) || a.attempt - b.attempt);
  for (const invocation of own) {
    entries.push({
      runId: run.id,
      kind: 'model_invocation',
      modelInvocationId: invocation.id,
      turnId: invocation.turnId,
      attempt: invocation.attempt,
      status: invocation.status,
      finishReason: invocation.finishReason,
      errorCode: invocation.errorCode,
      startedAt: invocation.startedAt.toISOString(),
      completedAt: iso(invocation.completedAt),
      durationMs: duration(invocation.startedAt, invocation.completedAt),
    });
  }
  return entries.map((entry, index) => ({ entrySequence: index + 1, ...entry }));
}
