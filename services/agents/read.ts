import { and, asc, desc, eq, gt, inArray, isNull, or } from 'drizzle-orm';
import { agents, agentVersions } from '../../db/schema/index.ts';
import { ValidationError } from '../../domain/errors.ts';
import { decodeKeysetCursor, toPage, type Page } from '../../domain/pagination.ts';
import type { ServiceContext } from '../context.ts';
import { requireActor } from '../require-actor.ts';
import { findLiveAgent } from './lookup.ts';
import { toAgentResponse, toAgentVersionResponse, type PublicAgent, type PublicAgentVersion } from './public.ts';

/** Live agents of the project, oldest first, each with its latest version's model and sandbox. */
export async function listAgents({ ctx, input }: { ctx: ServiceContext; input: { limit: number; cursor?: string | undefined } }): Promise<Page<PublicAgent>> {
  const actor = requireActor(ctx);
  const after = input.cursor ? decodeKeysetCursor(input.cursor) : null;
  if (input.cursor && !after) throw new ValidationError('cursor is not valid', { path: 'query.cursor' });
  const rows = await ctx.db
    .select()
    .from(agents)
    .where(
      and(
        eq(agents.projectId, actor.projectId),
        isNull(agents.deletedAt),
        after ? or(gt(agents.createdAt, after.createdAt), and(eq(agents.createdAt, after.createdAt), gt(agents.id, after.id))) : undefined,
      ),
    )
    .orderBy(asc(agents.createdAt), asc(agents.id))
    .limit(input.limit + 1);
  const latestIds = rows.map((row) => row.latestVersionId).filter((id): id is string => id !== null);
  const versions = latestIds.length ? await ctx.db.select().from(agentVersions).where(inArray(agentVersions.id, latestIds)) : [];
  const byId = new Map(versions.map((version) => [version.id, version]));
  return toPage(rows, input.limit, (row) => toAgentResponse(row, byId.get(row.latestVersionId!)!));
}

/** The agent with all its versions, newest first. */
export async function getAgent({ ctx, input }: { ctx: ServiceContext; input: { agentId: string } }): Promise<PublicAgent & { versions: PublicAgentVersion[] }> {
  const { agent, latest } = await findLiveAgent(ctx, input.agentId);
  const versions = await ctx.db.select().from(agentVersions).where(eq(agentVersions.agentId, agent.id)).orderBy(desc(agentVersions.version));
  return { ...toAgentResponse(agent, latest), versions: versions.map(toAgentVersionResponse) };
}

export async function listAgentVersions({ ctx, input }: { ctx: ServiceContext; input: { agentId: string } }): Promise<{ data: PublicAgentVersion[] }> {
  const { agent } = await findLiveAgent(ctx, input.agentId);
  const versions = await ctx.db.select().from(agentVersions).where(eq(agentVersions.agentId, agent.id)).orderBy(desc(agentVersions.version));
  return { data: versions.map(toAgentVersionResponse) };
}
