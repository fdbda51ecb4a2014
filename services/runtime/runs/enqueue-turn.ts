import { inArray } from 'drizzle-orm';
import { pendingTurns } from '../../../db/schema/index.ts';
import { ConflictError } from '../../../domain/errors.ts';
import { assertHasScopes } from '../../../domain/scopes.ts';
import { EVENT_KINDS } from '../../../domain/runs/events.ts';
import { MAX_PENDING_TURNS } from '../../../domain/sessions/inputs.ts';
import { confirmUploadedAttachments, type UploadedAttachments } from '../attachments/index.ts';
import { recordAudit } from '../../kernel/audit/index.ts';
import { appendProductEvents, type ProductEventDraft } from '../../kernel/events/index.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import type { RunStarterDeps } from '../../kernel/run-starter.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { cancelRun } from './cancel.ts';
import type { SessionRow } from './load-session.ts';
import { readPendingTurns, toPendingTurnResponse, type PendingTurnRow, type PublicPendingTurn } from './pending-turns.ts';
import type { RunRow } from './public.ts';

/** A follow-up accepted while the session was busy. */
export type QueuedTurn = { queued: true; pendingTurn: PublicPendingTurn };

/**
 * A turn sent while the session's latest run (`active`) is unsettled, with `ifBusy` enqueue or
 * interrupt, inside the follow-up's transaction (the session row locked). `enqueue` keeps it
 * after the session's other pending turns (at most MAX_PENDING_TURNS); `interrupt` withdraws
 * those and requests cancellation of the active run exactly as `POST /runs/{id}/cancel` does.
 * Either way the turn becomes a run when the active run settles (hand-off-pending-turn.ts). Its
 * files are confirmed now, so the hand-off needs no check that could fail. `interrupt` cancels a run
 * and withdraws turns others may have queued, so it needs `run:cancel` as well as the route's
 * `run:create` (withdraw-pending-turn.ts).
 */
export async function enqueueTurn(
  tx: ServiceContext,
  deps: RunStarterDeps,
  input: {
    session: SessionRow;
    active: Pick<RunRow, 'id'>;
    ifBusy: 'enqueue' | 'interrupt';
    text: string;
    uploaded: UploadedAttachments | null;
    idempotencyKey: string | null;
  },
): Promise<QueuedTurn> {
  const actor = requireActor(tx);
  const { session, ifBusy } = input;
  const now = tx.clock.now();
  const waiting = await readPendingTurns(tx.db, session.id, { forUpdate: true });
  const events: ProductEventDraft[] = [];
  let ahead = waiting.length;
  if (ifBusy === 'interrupt') {
    assertHasScopes(actor.scopes, ['run:cancel']);
    if (waiting.length > 0) {
      await tx.db
        .update(pendingTurns)
        .set({ state: 'withdrawn', withdrawnReason: 'interrupted', settledAt: now })
        .where(
          inArray(
            pendingTurns.id,
            waiting.map((turn) => turn.id),
          ),
        );
      events.push(...waiting.map((turn) => withdrawnEvent(turn, 'interrupted')));
    }
    ahead = 0;
  } else if (waiting.length >= MAX_PENDING_TURNS) {
    throw new ConflictError(`The session already holds ${MAX_PENDING_TURNS} pending turns; wait for its runs or withdraw one`, {
      limit: MAX_PENDING_TURNS,
      sessionId: session.id,
    });
  }
  const stored = await confirmUploadedAttachments(tx, { session, uploaded: input.uploaded, now });
  const [row] = await tx.db
    .insert(pendingTurns)
    .values({
      organizationId: session.organizationId,
      projectId: session.projectId,
      sessionId: session.id,
      ifBusy,
      state: 'pending',
      message: input.text,
      attachments: stored as unknown as Array<Record<string, unknown>>,
      idempotencyKey: input.idempotencyKey,
      createdByPrincipalId: actor.principalId,
      createdAt: now,
    })
    .returning();
  const pendingTurn = toPendingTurnResponse(row!, ahead + 1);
  events.push({
    aggregateType: 'session',
    aggregateId: session.id,
    kind: EVENT_KINDS.sessionInputQueued,
    publicPayload: { sessionId: session.id, pendingTurnId: row!.id, position: pendingTurn.position, ifBusy, activeRunId: input.active.id },
  });
  await recordAudit(tx, {
    action: EVENT_KINDS.sessionInputQueued,
    targetType: 'session',
    targetId: session.id,
    details: { pendingTurnId: row!.id, ifBusy, activeRunId: input.active.id },
  });
  // The active run's row before the project's event log, as every run step takes them (a
  // deadlock otherwise: services/runtime/delegations/cancel.ts).
  if (ifBusy === 'interrupt') await cancelRun({ ctx: tx, deps, input: { runId: input.active.id } });
  await appendProductEvents(tx, { organizationId: session.organizationId, projectId: session.projectId, events });
  return { queued: true, pendingTurn };
}

/** `session.input_withdrawn`: a pending turn that will never become a run. */
export function withdrawnEvent(turn: PendingTurnRow, reason: NonNullable<PendingTurnRow['withdrawnReason']>): ProductEventDraft {
  return {
    aggregateType: 'session',
    aggregateId: turn.sessionId,
    kind: EVENT_KINDS.sessionInputWithdrawn,
    publicPayload: { sessionId: turn.sessionId, pendingTurnId: turn.id, reason },
  };
}
