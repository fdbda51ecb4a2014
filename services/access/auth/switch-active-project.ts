import { eq } from 'drizzle-orm';
import { browserSessions } from '../../../db/schema/index.ts';
import { ForbiddenError } from '../../../domain/errors.ts';
import type { Actor, ServiceContext } from '../../kernel/service-context.ts';
import { loadMemberActor } from './load-actor.ts';

/** Moves the active project after checking the subject is a member there (and records it on a cookie session). */
export async function switchActiveProject({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { sessionId: string | null; actor: Actor; projectId: string };
}): Promise<Actor> {
  const next = await loadMemberActor({
    db: ctx.db,
    input: { organizationId: input.actor.organizationId, projectId: input.projectId, subject: input.actor.subject },
  });
  if (!next) throw new ForbiddenError('The principal has no membership in that project');
  if (input.sessionId) await ctx.db.update(browserSessions).set({ activeProjectId: input.projectId }).where(eq(browserSessions.id, input.sessionId));
  return next;
}
