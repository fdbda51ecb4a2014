import * as v from 'valibot';
import type { TurnFileInput } from '../../../domain/attachments/file-input.ts';
import { ConflictError } from '../../../domain/errors.ts';
import { isSettled } from '../../../domain/runs/states.ts';
import { acceptTurnFiles, TurnInput, turnText } from '../../../domain/sessions/inputs.ts';
import type { UploadedAttachments } from '../attachments/index.ts';
import { uploadTurnFiles } from './upload-turn-files.ts';
import { recordAudit } from '../../kernel/audit/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { appendProductEvents } from '../../kernel/events/index.ts';
import { findSession } from './load-session.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { assertSessionIdle } from './assert-session-idle.ts';
import { findRun } from './load.ts';
import { toRunResponse, type PublicRun } from './public.ts';
import { queueRun } from './queue-run.ts';
import type { RunStarterDeps } from '../../kernel/run-starter.ts';

/**
 * Queues a new run on a settled run's session with the caller's message
 * (`POST /runs/{id}/resume`). The named run must be settled and so must the session's latest
 * run (409 otherwise); the answer is the new run. `run.queued` names the run it resumed. Files
 * are checked and uploaded before the transaction opens, which then re-checks both states under
 * the session row lock and records the run without network I/O.
 */
export async function resumeRun({
  ctx,
  deps,
  input,
}: {
  ctx: ServiceContext;
  deps: RunStarterDeps;
  input: { runId: string; idempotencyKey: string | null } & TurnInput;
}): Promise<PublicRun> {
  const { runId, idempotencyKey, ...turn } = input;
  const parsed = v.parse(TurnInput, turn);
  const text = turnText(parsed);
  const files = acceptTurnFiles(parsed.files);
  const uploaded = files.length === 0 ? null : await uploadResumeFiles(ctx, deps, { runId, files });
  return withTransaction(ctx, async (tx) => {
    const named = await findRun(tx, runId);
    // Lock the session before reading states again: a run only settles through transitionRun,
    // which also updates this session row, so the checks below hold until commit.
    const session = await findSession({ ctx: tx, input: { sessionId: named.sessionId }, options: { forUpdate: true } });
    const run = await findRun(tx, runId);
    if (!isSettled(run.state)) throw new ConflictError('Only a settled run can be resumed', { runId: run.id, state: run.state });
    await assertSessionIdle(tx, session);
    const queued = await queueRun(tx, deps, { session, text, uploaded, idempotencyKey, resumedFromRunId: run.id });
    await recordAudit(tx, {
      action: 'run.created',
      targetType: 'run',
      targetId: queued.run.id,
      details: { sessionId: session.id, via: 'resume', resumedFromRunId: run.id },
    });
    await appendProductEvents(tx, { organizationId: session.organizationId, projectId: session.projectId, events: queued.events });
    return toRunResponse(queued.run);
  });
}

/** Before the transaction: the same 404 and 409 answers it gives, then the upload (no lock held). */
async function uploadResumeFiles(
  ctx: ServiceContext,
  deps: RunStarterDeps,
  input: { runId: string; files: readonly TurnFileInput[] },
): Promise<UploadedAttachments> {
  const run = await findRun(ctx, input.runId);
  if (!isSettled(run.state)) throw new ConflictError('Only a settled run can be resumed', { runId: run.id, state: run.state });
  return uploadTurnFiles(ctx, deps, { session: await findSession({ ctx, input: { sessionId: run.sessionId } }), files: input.files });
}
