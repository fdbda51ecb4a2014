import { eq } from 'drizzle-orm';
import { runs } from '../../../db/schema/index.ts';
import { ConflictError } from '../../../domain/errors.ts';
import { isSettled } from '../../../domain/runs/states.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import type { SessionRow } from './load-session.ts';

/**
 * Only one unsettled run may exist per session (spec 1 "Run"): a new run is a 409 while the
 * latest one is unsettled. Call with the session row locked, so the answer holds until commit.
 */
export async function assertSessionIdle(tx: ServiceContext, session: SessionRow): Promise<void> {
  if (!session.latestRunId) return;
  const [latest] = await tx.db.select({ id: runs.id, state: runs.state }).from(runs).where(eq(runs.id, session.latestRunId));
  if (latest && !isSettled(latest.state)) {
    throw new ConflictError("The session's latest run has not settled yet", { latestRunId: latest.id, state: latest.state });
  }
}
