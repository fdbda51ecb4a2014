import { listAgents, type PublicAgent } from '../../../services/configuration/agents/index.ts';
import type { ServiceContext } from '../../../services/kernel/service-context.ts';
import { agentToolOf, type AgentToolDescriptor } from '../domain/agent-tools.ts';
import { assignToolNames } from '../domain/tool-names.ts';

/** Agents are read in pages of the list's largest size. */
const AGENTS_PAGE = 200;

/** A tool of the door and the agent it runs. */
export type AgentTool = { tool: AgentToolDescriptor; agent: PublicAgent };

/**
 * The tools of the actor's project: one per live agent, oldest first, read afresh on every call
 * (agents come and go at runtime; the door keeps no list).
 */
export async function listAgentTools({ ctx }: { ctx: ServiceContext }): Promise<AgentTool[]> {
  const agents: PublicAgent[] = [];
  let cursor: string | undefined;
  do {
    const page = await listAgents({ ctx, input: { limit: AGENTS_PAGE, cursor } });
    agents.push(...page.data);
    cursor = page.pageInfo.nextCursor ?? undefined;
  } while (cursor);
  return assignToolNames(agents).map(({ name, agent }) => ({ tool: agentToolOf(name, agent), agent }));
}

/** The agent a tool name means in the actor's project now, or null: names resolve as the list assigns them. */
export async function findAgentTool({ ctx, input }: { ctx: ServiceContext; input: { name: string } }): Promise<AgentTool | null> {
  return (await listAgentTools({ ctx })).find((entry) => entry.tool.name === input.name) ?? null;
}
