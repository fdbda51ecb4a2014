import { listAgents, type PublicAgent } from '../../services/configuration/agents/index.ts';
import type { ServiceContext } from '../../services/kernel/service-context.ts';

/** Agents are read in pages of the list's largest size. */
const AGENTS_PAGE = 200;

/** Every live agent of the actor's project, oldest first: what a door serves, read afresh (agents come and go at runtime). */
export async function liveAgents(ctx: ServiceContext): Promise<PublicAgent[]> {
  const agents: PublicAgent[] = [];
  let cursor: string | undefined;
  do {
    const page = await listAgents({ ctx, input: { limit: AGENTS_PAGE, cursor } });
    agents.push(...page.data);
    cursor = page.pageInfo.nextCursor ?? undefined;
  } while (cursor);
  return agents;
}
