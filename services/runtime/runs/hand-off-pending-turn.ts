import { and, eq } from 'drizzle-orm';
import { pendingTurns, sessions } from '../../../db/schema/index.ts';
import { appendProductEvents } from '../../kernel/events/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import type { AdmissionGate } from './admission-gate.ts';
import { readPendingTurns, storedAttachmentsOf } from './pending-turns.ts';
import type { RunRow } from './public.ts';
import { queueRun } from './queue-run.ts';

/**
 * Inside the transaction that settled `run`: when it is its session's latest run and a turn is
 * pending, the oldest becomes the session's next run here, so no wake-up can be lost between the
 * settlement and the next run (docs/decisions/pending-turn-hand-off.md). Its user message
 * enters the thread only now, after everything the settled run wrote. The workflow starts after
 * the commit (the reconciler starts it if that call is lost).
 */
export async function handOffPendingTurn(tx: ServiceContext, gate: Pick<AdmissionGate, 'start'>, run: RunRow): Promise<void> {
  const [session] = await tx.db
    .select()
    .from(sessions)
    .where(and(eq(sessions.id, run.sessionId), eq(sessions.latestRunId, run.id)))
    .for('update');
  if (!session) return;
  const [next] = await readPendingTurns(tx.db, session.id, { forUpdate: true });
  if (!next) return;
  const queued = await queueRun(
    tx,
    { runStarter: gate },
    {
      session,
      text: next.message,
      idempotencyKey: next.idempotencyKey,
      pendingTurn: { id: next.id, createdByPrincipalId: next.createdByPrincipalId, stored: storedAttachmentsOf(next) },
    },
  );
  await tx.db.update(pendingTurns).set({ state: 'started', runId: queued.run.id, settledAt: queued.run.createdAt }).where(eq(pendingTurns.id, next.id));
  await appendProductEvents(tx, { organizationId: session.organizationId, projectId: session.projectId, events: queued.events });
}
