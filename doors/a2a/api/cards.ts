import { AgentCard } from '@a2a-js/sdk';
import type { Context } from 'hono';
import type { ServiceContext } from '../../../services/kernel/service-context.ts';
import { getAgent, listAgents } from '../../../services/configuration/agents/index.ts';
import { agentCardOf, type CardAgent } from '../domain/cards.ts';
import type { AppEnv } from '../../../api/env.ts';

const AGENTS_PAGE = 100;

/** The agent a door serves, as its card needs it (404 for an agent not live in the project). */
export async function doorAgent(ctx: ServiceContext, agentId: string): Promise<CardAgent> {
  const agent = await getAgent({ ctx, input: { agentId } });
  return { id: agent.id, key: agent.key, name: agent.name, description: agent.description, version: agent.version };
}

/** Every live agent of the project, oldest first. */
export async function doorAgents(ctx: ServiceContext): Promise<CardAgent[]> {
  const agents: CardAgent[] = [];
  let cursor: string | undefined;
  do {
    const page = await listAgents({ ctx, input: { limit: AGENTS_PAGE, cursor } });
    agents.push(...page.data.map((agent) => ({ id: agent.id, key: agent.key, name: agent.name, description: agent.description, version: agent.version })));
    cursor = page.pageInfo.nextCursor ?? undefined;
  } while (cursor);
  return agents;
}

/** The agent's endpoint as the caller reached this server: both bindings live there, and its card names it. */
export function endpointOf(c: Context<AppEnv>, projectId: string, agentId: string): string {
  return `${new URL(c.req.url).origin}/a2a/${projectId}/agents/${agentId}`;
}

export const cardJson = (agent: CardAgent, endpoint: string) => AgentCard.toJSON(agentCardOf(agent, endpoint));
