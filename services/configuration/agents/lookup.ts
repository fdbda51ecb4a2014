import { and, eq, isNull } from 'drizzle-orm';
import { agents, agentVersions } from '../../../db/schema/index.ts';
import { NotFoundError } from '../../../domain/errors.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { requireActor } from '../../kernel/require-actor.ts';

/** A live agent of the actor's project with its latest version; archived agents are 404. */
export async function findLiveAgent(ctx: ServiceContext, agentId: string, options: { forUpdate?: boolean } = {}) {
  const actor = requireActor(ctx);
  const query = ctx.db
    .select()
    .from(agents)
    .where(and(eq(agents.id, agentId), eq(agents.projectId, actor.projectId), isNull(agents.deletedAt)));
  const [agent] = options.forUpdate ? await query.for('update') : await query;
  if (!agent || !agent.latestVersionId) throw new NotFoundError('No agent with that id in this project');
  const [latest] = await ctx.db.select().from(agentVersions).where(eq(agentVersions.id, agent.latestVersionId));
  return { agent, latest: latest! };
}
