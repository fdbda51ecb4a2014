import type { PublicAgent } from '../../../services/configuration/agents/index.ts';
import type { ServiceContext } from '../../../services/kernel/service-context.ts';
import { agentToolOf, type AgentToolDescriptor } from '../domain/agent-tools.ts';
import { assignToolNames } from '../domain/tool-names.ts';
import { liveAgents } from '../../shared/agents.ts';

/** A tool of the door and the agent it runs. */
export type AgentTool = { tool: AgentToolDescriptor; agent: PublicAgent };

/**
 * The tools of the actor's project: one per live agent, oldest first, read afresh on every call
 * (agents come and go at runtime; the door keeps no list).
 */
export async function listAgentTools({ ctx }: { ctx: ServiceContext }): Promise<AgentTool[]> {
  return assignToolNames(await liveAgents(ctx)).map(({ name, agent }) => ({ tool: agentToolOf(name, agent), agent }));
}

/** The agent a tool name means in the actor's project now, or null: names resolve as the list assigns them. */
export async function findAgentTool({ ctx, input }: { ctx: ServiceContext; input: { name: string } }): Promise<AgentTool | null> {
  return (await listAgentTools({ ctx })).find((entry) => entry.tool.name === input.name) ?? null;
}
