import * as v from 'valibot';
import { acceptTurnFiles, TurnInput, turnText } from '../../domain/sessions/inputs.ts';
import { uploadTurnFiles } from './upload-turn-files.ts';
import { recordAudit } from '../audit/record-audit.ts';
import type { ServiceContext } from '../service-context.ts';
import { appendProductEvents } from '../events/append.ts';
import { findSession } from './load-session.ts';
import { withTransaction } from '../transaction.ts';
import { assertSessionIdle } from './assert-session-idle.ts';
import { toRunResponse, type PublicRun } from './public.ts';
import { queueRun } from './queue-run.ts';
import type { RunStarterDeps } from '../run-starter.ts';

/**
 * Queues the next run of a session with the caller's message (`POST /sessions/{id}/runs`).
 * Files are checked against the session's pinned agent version and uploaded first, before the
 * transaction opens (a busy session is refused before any upload); the transaction then locks
 * the session row, so of two concurrent turns one queues and the other gets the 409 for an
 * unsettled latest run, and records the run, message and attachments without network I/O. The
 * run keeps the session's pinned agent version.
 */
export async function createFollowUpRun({
  ctx,
  deps,
  input,
}: {
  ctx: ServiceContext;
  deps: RunStarterDeps;
  input: { sessionId: string; idempotencyKey: string | null } & TurnInput;
}): Promise<PublicRun> {
  const { sessionId, idempotencyKey, ...turn } = input;
  const parsed = v.parse(TurnInput, turn);
  const text = turnText(parsed);
  const files = acceptTurnFiles(parsed.files);
  const uploaded = files.length === 0 ? null : await uploadTurnFiles(ctx, deps, { session: await findSession({ ctx, input: { sessionId } }), files });
  return withTransaction(ctx, async (tx) => {
    const session = await findSession({ ctx: tx, input: { sessionId }, options: { forUpdate: true } });
    await assertSessionIdle(tx, session);
    const queued = await queueRun(tx, deps, { session, text, uploaded, idempotencyKey });
    await recordAudit(tx, { action: 'run.created', targetType: 'run', targetId: queued.run.id, details: { sessionId: session.id, via: 'follow_up' } });
    await appendProductEvents(tx, { organizationId: session.organizationId, projectId: session.projectId, events: queued.events });
    return toRunResponse(queued.run);
  });
}
