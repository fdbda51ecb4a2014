import { eq } from 'drizzle-orm';
import { projects } from '../../../db/schema/index.ts';
import { NotFoundError } from '../../../domain/errors.ts';
import { isUuid } from '../../../domain/uuid.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { agentProtocolsOf, type AgentProtocols } from './public.ts';

/**
 * Whether a project lets its agents answer over the standard agent protocols
 * (docs/decisions/agent-protocol-switches.md), for the doors: one select by the primary key,
 * whoever asks (a door reads it before it knows the caller). The installation's own switches
 * (`settings.doors`) are the door's to check; this is only the project's. An unknown project, or
 * an id that is not a UUID, is a NotFoundError.
 */
export async function agentProtocolsOfProject(ctx: ServiceContext, projectId: string): Promise<AgentProtocols> {
  if (!isUuid(projectId)) throw new NotFoundError('No project with that id');
  const [row] = await ctx.db
    .select({ a2aEnabled: projects.a2aEnabled, mcpServerEnabled: projects.mcpServerEnabled })
    .from(projects)
    .where(eq(projects.id, projectId));
  if (!row) throw new NotFoundError('No project with that id');
  return agentProtocolsOf(row);
}
