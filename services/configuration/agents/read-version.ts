import { and, eq } from 'drizzle-orm';
import { agents, agentVersions } from '../../../db/schema/index.ts';
import { NotFoundError } from '../../../domain/errors.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';

/**
 * A version of an agent of the actor's project with the agent it belongs to, archived or not: a
 * session keeps its pinned version for life, so what the session shows of it stays readable.
 */
export async function readAgentVersion({ ctx, input }: { ctx: ServiceContext; input: { agentVersionId: string } }) {
  const [row] = await ctx.db
    .select({ version: agentVersions, agent: { id: agents.id, name: agents.name, description: agents.description, createdAt: agents.createdAt } })
    .from(agentVersions)
    .innerJoin(agents, eq(agents.id, agentVersions.agentId))
    .where(and(eq(agentVersions.id, input.agentVersionId), eq(agentVersions.projectId, requireActor(ctx).projectId)));
  if (!row) throw new NotFoundError('No agent version with that id');
  return row;
}

/** The id of an agent's version numbered `version` in the actor's project, or 404. */
export async function agentVersionIdByNumber({ ctx, input }: { ctx: ServiceContext; input: { agentId: string; version: number } }): Promise<string> {
  const [row] = await ctx.db
    .select({ id: agentVersions.id })
    .from(agentVersions)
    .where(and(eq(agentVersions.agentId, input.agentId), eq(agentVersions.version, input.version), eq(agentVersions.projectId, requireActor(ctx).projectId)));
  if (!row) throw new NotFoundError(`The agent has no version ${input.version}`);
  return row.id;
}
