import { and, eq, isNotNull, isNull } from 'drizzle-orm';
import { sessions } from '../../db/schema/index.ts';
import type { SessionStatus } from '../../domain/runs/states.ts';
import { toPage, type Page } from '../../domain/pagination.ts';
import type { ServiceContext } from '../service-context.ts';
import { keysetPage } from '../keyset.ts';
import { requireActor } from '../require-actor.ts';
import { toSessionListItem, type PublicSessionListItem } from './public.ts';

export type ListSessionsInput = {
  limit: number;
  cursor?: string | undefined;
  agentId?: string | undefined;
  status?: SessionStatus | undefined;
  parentSessionId?: string | undefined;
  /** Only root sessions (no parent): what a human started, not delegated children. */
  root?: boolean | undefined;
  /** `true`: only archived sessions; `false`: none of them; absent: both. */
  archived?: boolean | undefined;
};

/**
 * The project's sessions, most recent activity first (`GET /sessions`), filtered by agent,
 * status, parent session or root-ness. Keyset paging over `(lastActivityAt, id)`: a session
 * that gets new activity while a client pages moves to the front, so it is not repeated.
 */
export async function listSessions({ ctx, input }: { ctx: ServiceContext; input: ListSessionsInput }): Promise<Page<PublicSessionListItem>> {
  const actor = requireActor(ctx);
  // keysetPage names its timestamp `createdAt`; here the sort key is the activity time.
  const page = keysetPage({ createdAt: sessions.lastActivityAt, id: sessions.id }, input.cursor, 'desc');
  const rows = await ctx.db
    .select()
    .from(sessions)
    .where(
      and(
        eq(sessions.projectId, actor.projectId),
        input.agentId ? eq(sessions.agentId, input.agentId) : undefined,
        input.status ? eq(sessions.status, input.status) : undefined,
        input.parentSessionId ? eq(sessions.parentSessionId, input.parentSessionId) : undefined,
        input.root ? isNull(sessions.parentSessionId) : undefined,
        input.archived === undefined ? undefined : input.archived ? isNotNull(sessions.archivedAt) : isNull(sessions.archivedAt),
        isNull(sessions.deletedAt),
        page.after,
      ),
    )
    .orderBy(...page.orderBy)
    .limit(input.limit + 1);
  const keyed = rows.map((row) => ({ createdAt: row.lastActivityAt, id: row.id, row }));
  return toPage(keyed, input.limit, (entry) => toSessionListItem(entry.row));
}
