import * as v from 'valibot';
import { ConflictError, ValidationError } from '../../../domain/errors.ts';
import { isSettled } from '../../../domain/runs/states.ts';
import { acceptTurnFiles, FollowUpInput, turnText, type IfBusy } from '../../../domain/sessions/inputs.ts';
import { uploadTurnFiles } from './upload-turn-files.ts';
import { recordAudit } from '../../kernel/audit/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { appendProductEvents } from '../../kernel/events/index.ts';
import { findSession, type SessionRow } from './load-session.ts';
import { lockSessionAndLatestRun } from './lock-session.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { toRunResponse, type PublicRun } from './public.ts';
import { queueRun } from './queue-run.ts';
import type { RunStarterDeps } from '../../kernel/run-starter.ts';
import { enqueueTurn, type QueuedTurn } from './enqueue-turn.ts';
import type { UploadedAttachments } from '../attachments/index.ts';

/** What a follow-up answers: the new run, or the pending turn it waits as (`ifBusy` on a busy session). */
export type FollowUpAnswer = PublicRun | QueuedTurn;

/**
 * Queues the next run of a session with the caller's message (`POST /sessions/{id}/runs`).
 * Files are checked against the session's pinned agent version and uploaded first, before the
 * transaction opens; the transaction then locks the session row, so of two concurrent turns one
 * queues and the other sees it. While the latest run is unsettled the turn is refused with 409
 * (`ifBusy: reject`, the default), kept as a pending turn (`enqueue`), or kept while the active
 * run is cancelled (`interrupt`; enqueue-turn.ts). The run keeps the session's pinned version.
 */
type FollowUpArgs = { ctx: ServiceContext; deps: RunStarterDeps; input: { sessionId: string; idempotencyKey: string | null } & FollowUpInput };
export async function createFollowUpRun(args: FollowUpArgs & { input: { ifBusy?: 'reject' } }): Promise<PublicRun>;
export async function createFollowUpRun(args: FollowUpArgs): Promise<FollowUpAnswer>;
export async function createFollowUpRun({ ctx, deps, input }: FollowUpArgs): Promise<FollowUpAnswer> {
  const { sessionId, idempotencyKey, ...turn } = input;
  const parsed = v.parse(FollowUpInput, turn);
  const ifBusy: IfBusy = parsed.ifBusy ?? 'reject';
  const text = turnText(parsed);
  const files = acceptTurnFiles(parsed.files);
  const childRule = (session: SessionRow) => {
    if (session.parentSessionId && ifBusy !== 'reject')
      throw new ValidationError("A delegated session's turns are driven by its coordinator: ifBusy must be reject", { path: 'body.ifBusy' });
  };
  let uploaded: UploadedAttachments | null = null;
  if (files.length > 0) {
    const source = await findSession({ ctx, input: { sessionId } });
    childRule(source);
    uploaded = await uploadTurnFiles(ctx, deps, { session: source, files, mayWait: ifBusy !== 'reject' });
  }
  return withTransaction(ctx, async (tx) => {
    const { session, latest } = await lockSessionAndLatestRun(tx, sessionId, { lockRunFirst: ifBusy === 'interrupt' });
    if (session.archivedAt)
      throw new ConflictError('The session is archived: it takes no new turns (fork it to continue)', {
        sessionId: session.id,
        archivedAt: session.archivedAt.toISOString(),
      });
    childRule(session);
    if (latest && !isSettled(latest.state)) {
      if (ifBusy === 'reject') throw new ConflictError("The session's latest run has not settled yet", { latestRunId: latest.id, state: latest.state });
      return enqueueTurn(tx, deps, { session, active: latest, ifBusy, text, uploaded, idempotencyKey });
    }
    return queueFollowUp(tx, deps, { session, text, uploaded, idempotencyKey });
  });
}

async function queueFollowUp(
  tx: ServiceContext,
  deps: RunStarterDeps,
  input: { session: SessionRow; text: string; uploaded: UploadedAttachments | null; idempotencyKey: string | null },
): Promise<PublicRun> {
  const queued = await queueRun(tx, deps, input);
  await recordAudit(tx, { action: 'run.created', targetType: 'run', targetId: queued.run.id, details: { sessionId: input.session.id, via: 'follow_up' } });
  await appendProductEvents(tx, { organizationId: input.session.organizationId, projectId: input.session.projectId, events: queued.events });
  return toRunResponse(queued.run);
}
