import { randomBytes } from 'node:crypto';
import { browserSessions } from '../../../db/schema/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { hashSessionToken, SESSION_LIFETIME_MS } from './browser-session-token.ts';

/** Starts a cookie session for `input.subject`; returns the token for the cookie (stored hashed). */
export async function createBrowserSession({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { organizationId: string; subject: string; projectId: string };
}): Promise<{ token: string; expiresAt: Date }> {
  const token = randomBytes(32).toString('base64url');
  const expiresAt = new Date(ctx.clock.now().getTime() + SESSION_LIFETIME_MS);
  await ctx.db.insert(browserSessions).values({
    organizationId: input.organizationId,
    subject: input.subject,
    tokenHash: hashSessionToken(token),
    homeProjectId: input.projectId,
    activeProjectId: input.projectId,
    expiresAt,
  });
  return { token, expiresAt };
}
