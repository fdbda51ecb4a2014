import { randomUUID } from 'node:crypto';
import { eq, getTableColumns, sql, type SQL } from 'drizzle-orm';
import { insertedRow } from '../../../db/inserted-row.ts';
import { runs, sessions } from '../../../db/schema/index.ts';
import { holdWrite } from '../../kernel/pending-writes.ts';
import { runStateEventKind } from '../../../domain/runs/events.ts';
import { INPUT_STEP_KEY, wallDeadlineOf } from '../../../domain/sessions/limits.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import type { ProductEventDraft } from '../../kernel/events/index.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import type { SessionRow } from './load-session.ts';
import { insertThreadMessage, messageCreatedEvent } from './insert-message.ts';
import type { MessageRow, RunRow } from './public.ts';
import type { RunStarter, RunStarterDeps } from '../../kernel/run-starter.ts';
import { assertRunQuota, unsettledRunsBefore } from './run-quota.ts';
import { attachmentMetadataOf, confirmUploadedAttachments, recordAttachments, type StoredAttachment, type UploadedAttachments } from '../attachments/index.ts';
import { countRunQueued } from '../../kernel/metrics/index.ts';

export type QueuedRun = {
  run: RunRow;
  session: SessionRow;
  message: MessageRow;
  events: ProductEventDraft[];
  /**
   * With `held`, the quota check the caller's event append completes: it evaluates `probe` in its
   * statement (`appendProductEventsReading`) and passes the answer to `check`, which throws over
   * the quota (rolling everything back). Null when no quota applies or the run was inserted.
   */
  heldQuota: { probe: SQL<number>; check(unsettledBefore: number | null): void } | null;
};

/**
 * The common core of session creation, follow-up and resume, inside the caller's transaction:
 * a `queued` run pinned to the session's agent version, the user message at step `input`, the
 * session's new status and latest run, and the wake of the runtime after commit. Returns the
 * `run.queued` and `message.created` drafts for the caller to append last (after its audit).
 * The caller holds the session row lock and has checked that the latest run is settled. Files
 * arrive already uploaded (`uploadAttachments`, before the transaction): nothing here leaves the
 * database.
 */
export async function queueRun(
  tx: ServiceContext,
  deps: { runStarter: Pick<RunStarter, 'start'>; unsettledRunsLimit?: RunStarterDeps['unsettledRunsLimit'] },
  input: {
    session: SessionRow;
    text: string;
    uploaded?: UploadedAttachments | null;
    idempotencyKey: string | null;
    resumedFromRunId?: string;
    now?: Date;
    /**
     * A pending turn becoming its run at the settlement of the run before it (hand-off.ts): its
     * files were confirmed when it was accepted, its creator is the run's, and it takes the place
     * the settled run just freed (no quota check).
     */
    pendingTurn?: { id: string; createdByPrincipalId: string | null; stored: StoredAttachment[] };
    /**
     * The session was opened in this transaction naming this id as its latest run, with an empty
     * thread that kept sequence 1 (`openSession`'s `firstRunId`): the run takes that id, its
     * message that sequence, and the session row is already as it must be.
     */
    firstRunId?: string;
    /**
     * With `firstRunId` and no files: the run's row is built here and its insert held for the
     * caller's event append, which must complete `heldQuota` (session creation in one write).
     */
    held?: boolean;
  },
): Promise<QueuedRun> {
  if (!tx.inTransaction) throw new Error('queueRun must run inside a transaction');
  const { session, pendingTurn } = input;
  const createdByPrincipalId = pendingTurn ? pendingTurn.createdByPrincipalId : requireActor(tx).principalId;
  // Session creation passes its own time, so a new session and its first run share one instant.
  const now = input.now ?? tx.clock.now();
  // Uploaded files are confirmed first: a turn whose uploads no longer fit queues nothing.
  const stored = pendingTurn ? pendingTurn.stored : await confirmUploadedAttachments(tx, { session, uploaded: input.uploaded ?? null, now });
  const { firstRunId } = input;
  // A pending turn takes the place its settled run freed: no quota.
  const quota = pendingTurn ? undefined : deps.unsettledRunsLimit;
  const values = {
    organizationId: session.organizationId,
    projectId: session.projectId,
    threadId: session.threadId,
    sessionId: session.id,
    // A session keeps its pinned version for life: a newer agent version never upgrades it.
    agentVersionId: session.agentVersionId,
    createdByPrincipalId,
    state: 'queued' as const,
    inputPublic: { message: input.text },
    idempotencyKey: input.idempotencyKey,
    wallDeadlineAt: wallDeadlineOf(now),
    createdAt: now,
    updatedAt: now,
  };
  let run: RunRow;
  let heldQuota: QueuedRun['heldQuota'] = null;
  if (input.held && firstRunId !== undefined && stored.length === 0) {
    run = insertedRow(runs, { ...values, id: firstRunId });
    await holdWrite(tx, tx.db.insert(runs).values(run));
    if (quota)
      heldQuota = {
        probe: unsettledRunsBefore(tx.db, session.projectId, quota),
        check: (unsettledBefore) => {
          if (unsettledBefore === null) throw new Error('the held run quota was not read');
          assertRunQuota(unsettledBefore, quota);
        },
      };
  } else {
    const [inserted] = await tx.db
      .insert(runs)
      .values({ ...values, ...(firstRunId === undefined ? {} : { id: firstRunId }) })
      // The project's unsettled runs as they were before this insert, when a quota applies; over
      // it, the throw rolls the insert back with the rest of the transaction.
      .returning({ ...getTableColumns(runs), unsettledBefore: quota ? unsettledRunsBefore(tx.db, session.projectId, quota) : sql<null>`null` });
    const { unsettledBefore, ...sent } = inserted!;
    run = sent;
    if (quota && unsettledBefore !== null) assertRunQuota(unsettledBefore, quota);
  }
  // Its row is built here and its insert held for the caller's event append (`holdWrite`).
  const message = await insertThreadMessage(tx, {
    id: randomUUID(),
    held: true,
    organizationId: session.organizationId,
    projectId: session.projectId,
    threadId: session.threadId,
    runId: run.id,
    stepKey: INPUT_STEP_KEY,
    role: 'user',
    content: stored.length > 0 ? { text: input.text, attachments: stored.map(attachmentMetadataOf) } : { text: input.text },
    at: now,
    ...(firstRunId === undefined ? {} : { reservedSequence: 1 }),
  });
  await recordAttachments(tx, { organizationId: session.organizationId, projectId: session.projectId, sessionId: session.id, runId: run.id, stored });
  const [updated] =
    firstRunId === undefined
      ? await tx.db.update(sessions).set({ status: 'queued', latestRunId: run.id, lastActivityAt: now }).where(eq(sessions.id, session.id)).returning()
      : [session];

  const runPayload: Record<string, unknown> = { runId: run.id, sessionId: session.id, agentVersionId: session.agentVersionId, state: 'queued' };
  if (input.resumedFromRunId) runPayload.resumedFromRunId = input.resumedFromRunId;
  if (pendingTurn) runPayload.pendingTurnId = pendingTurn.id;
  const events: ProductEventDraft[] = [
    { aggregateType: 'run', aggregateId: run.id, kind: runStateEventKind('queued'), publicPayload: runPayload },
    messageCreatedEvent(message, session.id),
  ];
  // The row commits first; start is idempotent and the worker's reconciler covers a lost call.
  const start = { runId: run.id, projectId: session.projectId, sessionId: session.id, agentId: session.agentId };
  tx.afterCommit.push(() => deps.runStarter.start(start));
  countRunQueued(tx, session.agentId);
  return { run, session: updated!, message, events, heldQuota };
}
