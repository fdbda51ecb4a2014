import { and, eq, isNull } from 'drizzle-orm';
import { sessions } from '../../../db/schema/index.ts';
import { NotFoundError } from '../../../domain/errors.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';

export type SessionRow = typeof sessions.$inferSelect;

/**
 * A session of the actor's project, or 404 (a deleted session is gone). `options.forUpdate` locks the row to the end of the
 * transaction: every verb that queues a run takes this lock first, so two concurrent turns
 * cannot both see a settled latest run.
 */
export async function findSession({
  ctx,
  input,
  options = {},
}: {
  ctx: ServiceContext;
  input: { sessionId: string };
  options?: { forUpdate?: boolean };
}): Promise<SessionRow> {
  const actor = requireActor(ctx);
  const query = ctx.db
    .select()
    .from(sessions)
    .where(and(eq(sessions.id, input.sessionId), eq(sessions.projectId, actor.projectId), isNull(sessions.deletedAt)));
  const [session] = options.forUpdate ? await query.for('update') : await query;
  if (!session) throw new NotFoundError('No session with that id in this project');
  return session;
}
