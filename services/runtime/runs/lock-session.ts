import { eq } from 'drizzle-orm';
import { runs } from '../../../db/schema/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { findSession, type SessionRow } from './load-session.ts';
import type { RunRow } from './public.ts';

/**
 * Locks the session row and reads its latest run. A verb that will cancel that run (an
 * interrupt, an archive, a delete) locks the run row too; settlement locks the run before the
 * session, so such a verb takes the run's lock first (`lockRunFirst`: the same order, no
 * deadlock), then checks the latest run did not change meanwhile.
 */
export async function lockSessionAndLatestRun(
  tx: ServiceContext,
  sessionId: string,
  options: { lockRunFirst: boolean },
): Promise<{ session: SessionRow; latest: Pick<RunRow, 'id' | 'state'> | null }> {
  for (let attempt = 0; ; attempt++) {
    let lockedRunId: string | null = null;
    if (options.lockRunFirst) {
      const peek = await findSession({ ctx: tx, input: { sessionId } });
      if (peek.latestRunId) {
        await tx.db.select({ id: runs.id }).from(runs).where(eq(runs.id, peek.latestRunId)).for('update');
        lockedRunId = peek.latestRunId;
      }
    }
    const session = await findSession({ ctx: tx, input: { sessionId }, options: { forUpdate: true } });
    if (options.lockRunFirst && session.latestRunId !== lockedRunId && attempt < 5) continue;
    if (!session.latestRunId) return { session, latest: null };
    const [latest] = await tx.db.select({ id: runs.id, state: runs.state }).from(runs).where(eq(runs.id, session.latestRunId));
    return { session, latest: latest ?? null };
  }
}
