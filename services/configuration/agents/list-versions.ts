import { desc, eq } from 'drizzle-orm';
import { agentVersions } from '../../../db/schema/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { findLiveAgent } from './lookup.ts';
import { toAgentVersionResponse, type PublicAgentVersion } from './public.ts';

/** Every version of a live agent, newest first. */
export async function listAgentVersions({ ctx, input }: { ctx: ServiceContext; input: { agentId: string } }): Promise<{ data: PublicAgentVersion[] }> {
  const { agent } = await findLiveAgent(ctx, input.agentId);
  return { data: await versionsOf(ctx, agent.id) };
}

/** An agent's versions, newest first, as the API shows them. */
export async function versionsOf(ctx: ServiceContext, agentId: string): Promise<PublicAgentVersion[]> {
  const versions = await ctx.db.select().from(agentVersions).where(eq(agentVersions.agentId, agentId)).orderBy(desc(agentVersions.version));
  return versions.map(toAgentVersionResponse);
}
