import { and, eq, inArray } from 'drizzle-orm';
import { agents, agentVersions } from '../../../db/schema/index.ts';
import { NotFoundError } from '../../../domain/errors.ts';
import { toPage, type Page } from '../../../domain/pagination.ts';
import { keysetPage } from '../../kernel/keyset.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { versionsOf } from './list-versions.ts';
import { toAgentResponse, type PublicAgent, type PublicAgentVersion } from './public.ts';

/**
 * Reads of agents that include archived (deleted) ones, with when they were archived: for an API
 * whose archived agents stay readable (the Anthropic-compatible one, issue 45). The native API
 * never uses these: there an archived agent is 404 (`findLiveAgent`). Read only: publishing to
 * or starting sessions from an archived agent stays refused by the verbs that do those.
 */
export type AgentIncludingArchived = PublicAgent & { archivedAt: string | null };

/** The agent of the actor's project, archived or not, with all its versions, newest first. */
export async function getAgentIncludingArchived({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { agentId: string };
}): Promise<AgentIncludingArchived & { versions: PublicAgentVersion[] }> {
  const actor = requireActor(ctx);
  const [found] = await ctx.db
    .select({ agent: agents, latest: agentVersions })
    .from(agents)
    .innerJoin(agentVersions, eq(agentVersions.id, agents.latestVersionId))
    .where(and(eq(agents.id, input.agentId), eq(agents.projectId, actor.projectId)));
  if (!found) throw new NotFoundError('No agent with that id in this project');
  return {
    ...toAgentResponse(found.agent, found.latest),
    archivedAt: found.agent.deletedAt?.toISOString() ?? null,
    versions: await versionsOf(ctx, found.agent.id),
  };
}

/** The project's agents, archived ones too, oldest first (the same cursors as `listAgents`). */
export async function listAgentsIncludingArchived({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { limit: number; cursor?: string | undefined };
}): Promise<Page<AgentIncludingArchived>> {
  const actor = requireActor(ctx);
  const page = keysetPage({ createdAt: agents.createdAt, id: agents.id }, input.cursor, 'asc');
  const rows = await ctx.db
    .select()
    .from(agents)
    .where(and(eq(agents.projectId, actor.projectId), page.after))
    .orderBy(...page.orderBy)
    .limit(input.limit + 1);
  const latestIds = rows.map((row) => row.latestVersionId).filter((id): id is string => id !== null);
  const versions = latestIds.length ? await ctx.db.select().from(agentVersions).where(inArray(agentVersions.id, latestIds)) : [];
  const byId = new Map(versions.map((version) => [version.id, version]));
  return toPage(rows, input.limit, (row) => ({ ...toAgentResponse(row, byId.get(row.latestVersionId!)!), archivedAt: row.deletedAt?.toISOString() ?? null }));
}
