import { and, count, eq, gte, inArray, isNull } from 'drizzle-orm';
import { runs, sessions } from '../../../db/schema/index.ts';
import { encodeKeysetCursor, type Page } from '../../../domain/pagination.ts';
import type { RunState } from '../../../domain/runs/states.ts';
import { keysetPage } from '../../kernel/keyset.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { toRunResponse, type PublicRun } from './public.ts';

/**
 * The runs one principal started with one agent, most recently updated first (the A2A door's
 * `ListTasks`: a caller sees its own tasks only), optionally of one session, in some states, or
 * updated since a time; with how many match in all. Keyset pages over `(updatedAt, id)`.
 */
export async function listAgentRunsOfPrincipal({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { agentId: string; sessionId?: string; states?: RunState[]; updatedSince?: Date; limit: number; cursor?: string | undefined };
}): Promise<Page<PublicRun> & { total: number }> {
  const actor = requireActor(ctx);
  const page = keysetPage({ createdAt: runs.updatedAt, id: runs.id }, input.cursor, 'desc');
  const matching = and(
    eq(runs.projectId, actor.projectId),
    eq(runs.createdByPrincipalId, actor.principalId),
    eq(sessions.agentId, input.agentId),
    isNull(sessions.deletedAt),
    input.sessionId ? eq(runs.sessionId, input.sessionId) : undefined,
    input.states ? inArray(runs.state, input.states) : undefined,
    input.updatedSince ? gte(runs.updatedAt, input.updatedSince) : undefined,
  );
  const [rows, [total]] = await Promise.all([
    ctx.db
      .select({ run: runs })
      .from(runs)
      .innerJoin(sessions, eq(sessions.id, runs.sessionId))
      .where(and(matching, page.after))
      .orderBy(...page.orderBy)
      .limit(input.limit + 1),
    ctx.db.select({ value: count() }).from(runs).innerJoin(sessions, eq(sessions.id, runs.sessionId)).where(matching),
  ]);
  const pageRows = rows.slice(0, input.limit).map((row) => row.run);
  const last = pageRows.at(-1);
  return {
    data: pageRows.map(toRunResponse),
    pageInfo: { nextCursor: rows.length > input.limit && last ? encodeKeysetCursor({ createdAt: last.updatedAt, id: last.id }) : null },
    total: total?.value ?? 0,
  };
}
