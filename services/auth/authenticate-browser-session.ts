import { and, eq, gt } from 'drizzle-orm';
import { browserSessions } from '../../db/schema/index.ts';
import { ForbiddenError, UnauthenticatedError } from '../../domain/errors.ts';
import type { Actor, ServiceContext } from '../service-context.ts';
import { hashSessionToken } from './browser-session-token.ts';
import { earliestProjectId, loadMemberActor } from './load-actor.ts';

/**
 * The session's actor, re-resolved on every request: its active project if the subject still
 * has a membership there, else its home project, else any project of the organization where it
 * has one. For a `/projects/{id}/...` path the project must be that actor's project (spec 2
 * common rule 4).
 */
export async function authenticateBrowserSession(
  ctx: ServiceContext,
  input: { token: string; pathProjectId: string | null },
): Promise<{ actor: Actor; sessionId: string }> {
  const [session] = await ctx.db
    .select()
    .from(browserSessions)
    .where(and(eq(browserSessions.tokenHash, hashSessionToken(input.token)), gt(browserSessions.expiresAt, ctx.clock.now())));
  if (!session) throw new UnauthenticatedError('The session has expired or is not valid');

  const candidates = [session.activeProjectId, session.homeProjectId, await earliestProjectId(ctx.db, session.organizationId)];
  let actor: Actor | null = null;
  for (const projectId of candidates) {
    if (!projectId) continue;
    actor = await loadMemberActor(ctx.db, { organizationId: session.organizationId, projectId, subject: session.subject });
    if (actor) break;
  }
  if (!actor) throw new UnauthenticatedError('The session has no project membership');
  if (input.pathProjectId && input.pathProjectId !== actor.projectId) {
    throw new ForbiddenError('The project in the path is not the active project of this session');
  }
  return { actor, sessionId: session.id };
}
