import { AgentCard } from '@a2a-js/sdk';
import type { Context } from 'hono';
import type { ServiceContext } from '../../../services/kernel/service-context.ts';
import { getAgent, type PublicAgent } from '../../../services/configuration/agents/index.ts';
import { liveAgents } from '../../shared/agents.ts';
import { agentCardOf, type CardAgent } from '../domain/cards.ts';
import type { AppEnv } from '../../../api/env.ts';

const cardAgentOf = (agent: PublicAgent): CardAgent => ({
  id: agent.id,
  key: agent.key,
  name: agent.name,
  description: agent.description,
  version: agent.version,
});

/** The agent a door serves, as its card needs it (404 for an agent not live in the project). */
export async function doorAgent(ctx: ServiceContext, agentId: string): Promise<CardAgent> {
  return cardAgentOf(await getAgent({ ctx, input: { agentId } }));
}

/** Every live agent of the project, oldest first. */
export async function doorAgents(ctx: ServiceContext): Promise<CardAgent[]> {
  return (await liveAgents(ctx)).map(cardAgentOf);
}

/** The agent's endpoint as the caller reached this server: both bindings live there, and its card names it. */
export function endpointOf(c: Context<AppEnv>, projectId: string, agentId: string): string {
  return `${new URL(c.req.url).origin}/a2a/${projectId}/agents/${agentId}`;
}

export const cardJson = (agent: CardAgent, endpoint: string) => AgentCard.toJSON(agentCardOf(agent, endpoint));
