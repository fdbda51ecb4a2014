import { eq } from 'drizzle-orm';
import { browserSessions } from '../../../db/schema/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { hashSessionToken } from './browser-session-token.ts';

/** Ends the cookie session with this token (nothing when there is none). */
export async function deleteBrowserSession({ ctx, input }: { ctx: ServiceContext; input: { token: string } }): Promise<void> {
  await ctx.db.delete(browserSessions).where(eq(browserSessions.tokenHash, hashSessionToken(input.token)));
}
