import { and, eq, gt, gte, isNotNull, isNull, lt, lte } from 'drizzle-orm';
import { sessions } from '../../../db/schema/index.ts';
import type { SessionStatus } from '../../../domain/runs/states.ts';
import { toPage, type Page } from '../../../domain/pagination.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { keysetPage } from '../../kernel/keyset.ts';
import { requireActor } from '../../kernel/require-actor.ts';
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
  /** Only sessions pinned to this agent version. */
  agentVersionId?: string | undefined;
  /** Bounds on the creation time (the Anthropic-compatible list's `created_at[…]`). */
  created?: { gt?: Date | undefined; gte?: Date | undefined; lt?: Date | undefined; lte?: Date | undefined } | undefined;
  /** Most recent activity first (default) or oldest activity first. */
  order?: 'asc' | 'desc' | undefined;
};

/**
 * The project's sessions, most recent activity first (or oldest first: `order`) (`GET
 * /sessions`), filtered by agent, agent version, status, parent session, root-ness, archived or
 * creation time. Keyset paging over `(lastActivityAt, id)`: a session
 * that gets new activity while a client pages moves to the front, so it is not repeated.
 */
export async function listSessions({ ctx, input }: { ctx: ServiceContext; input: ListSessionsInput }): Promise<Page<PublicSessionListItem>> {
  const actor = requireActor(ctx);
  // keysetPage names its timestamp `createdAt`; here the sort key is the activity time.
  const page = keysetPage({ createdAt: sessions.lastActivityAt, id: sessions.id }, input.cursor, input.order ?? 'desc');
  const created = input.created ?? {};
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
        input.agentVersionId ? eq(sessions.agentVersionId, input.agentVersionId) : undefined,
        created.gt ? gt(sessions.createdAt, created.gt) : undefined,
        created.gte ? gte(sessions.createdAt, created.gte) : undefined,
        created.lt ? lt(sessions.createdAt, created.lt) : undefined,
        created.lte ? lte(sessions.createdAt, created.lte) : undefined,
        page.after,
      ),
    )
    .orderBy(...page.orderBy)
    .limit(input.limit + 1);
  const keyed = rows.map((row) => ({ createdAt: row.lastActivityAt, id: row.id, row }));
  return toPage(keyed, input.limit, (entry) => toSessionListItem(entry.row));
}
