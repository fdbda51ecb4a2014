import type { ServiceContext } from '../../kernel/service-context.ts';
import { versionsOf } from './list-versions.ts';
import { findLiveAgent } from './lookup.ts';
import { toAgentResponse, type PublicAgent, type PublicAgentVersion } from './public.ts';

/** The agent with all its versions, newest first. */
export async function getAgent({ ctx, input }: { ctx: ServiceContext; input: { agentId: string } }): Promise<PublicAgent & { versions: PublicAgentVersion[] }> {
  const { agent, latest } = await findLiveAgent(ctx, input.agentId);
  return { ...toAgentResponse(agent, latest), versions: await versionsOf(ctx, agent.id) };
}
