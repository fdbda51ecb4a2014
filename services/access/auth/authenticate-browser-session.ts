import { and, eq, gt } from 'drizzle-orm';
import { browserSessions } from '../../../db/schema/index.ts';
import { UnauthenticatedError } from '../../../domain/errors.ts';
import type { Actor, ServiceContext } from '../../kernel/service-context.ts';
import { hashSessionToken } from './browser-session-token.ts';
import { earliestProjectId, loadMemberActor } from './load-actor.ts';

/**
 * The cookie session's actor, re-resolved on every request (spec 3 "Browser sessions" rule 1):
 * the chosen active project (cookie, then the session's record) if the subject still has a
 * membership there, else the session's own (home) project, else the organization's earliest
 * project where it has one. No membership anywhere is 401.
 */
export async function authenticateBrowserSession({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { token: string; preferredProjectId: string | null };
}): Promise<{ actor: Actor; sessionId: string }> {
  const [session] = await ctx.db
    .select()
    .from(browserSessions)
    .where(and(eq(browserSessions.tokenHash, hashSessionToken(input.token)), gt(browserSessions.expiresAt, ctx.clock.now())));
  if (!session) throw new UnauthenticatedError('The session has expired or is not valid');

  const candidates = [input.preferredProjectId, session.activeProjectId, session.homeProjectId, await earliestProjectId(ctx.db, session.organizationId)];
  for (const projectId of candidates) {
    if (!projectId) continue;
    const actor = await loadMemberActor({ db: ctx.db, input: { organizationId: session.organizationId, projectId, subject: session.subject } });
    if (actor) return { actor, sessionId: session.id };
  }
  throw new UnauthenticatedError('The session has no project membership');
}
