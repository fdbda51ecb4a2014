import { createHash, randomBytes } from 'node:crypto';
import { and, eq, gt } from 'drizzle-orm';
import { browserSessions } from '../../db/schema/index.ts';
import { ForbiddenError, UnauthenticatedError } from '../../domain/errors.ts';
import type { Actor, ServiceContext } from '../service-context.ts';
import { earliestProjectId, loadMemberActor } from './load-actor.ts';

export const SESSION_LIFETIME_MS = 30 * 24 * 60 * 60 * 1000;

const hashToken = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

/** Starts a cookie session for `subject`; returns the token for the cookie (stored hashed). */
export async function createBrowserSession(
  ctx: ServiceContext,
  input: { organizationId: string; subject: string; projectId: string },
): Promise<{ token: string; expiresAt: Date }> {
  const token = randomBytes(32).toString('base64url');
  const expiresAt = new Date(ctx.clock.now().getTime() + SESSION_LIFETIME_MS);
  await ctx.db.insert(browserSessions).values({
    organizationId: input.organizationId,
    subject: input.subject,
    tokenHash: hashToken(token),
    homeProjectId: input.projectId,
    activeProjectId: input.projectId,
    expiresAt,
  });
  return { token, expiresAt };
}

export async function deleteBrowserSession(ctx: ServiceContext, token: string): Promise<void> {
  await ctx.db.delete(browserSessions).where(eq(browserSessions.tokenHash, hashToken(token)));
}

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
    .where(and(eq(browserSessions.tokenHash, hashToken(input.token)), gt(browserSessions.expiresAt, ctx.clock.now())));
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

/** Moves the session's active project after checking the subject is a member there. */
export async function switchActiveProject(ctx: ServiceContext, input: { sessionId: string; actor: Actor; projectId: string }): Promise<Actor> {
  const next = await loadMemberActor(ctx.db, { organizationId: input.actor.organizationId, projectId: input.projectId, subject: input.actor.subject });
  if (!next) throw new ForbiddenError('The principal has no membership in that project');
  await ctx.db.update(browserSessions).set({ activeProjectId: input.projectId }).where(eq(browserSessions.id, input.sessionId));
  return next;
}
