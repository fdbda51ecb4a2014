import { eq } from 'drizzle-orm';
import { agentVersions } from '../../db/schema/index.ts';
import type { AgentConfig, ToolDefinition } from '../../domain/agent-config/index.ts';
import type { ServiceContext } from '../service-context.ts';
import { sandboxToolDefinitions } from '../../domain/sandbox/tools.ts';

/**
 * The caller and platform tools of the run's pinned agent version, by name. Stored configs are
 * the parsed, defaulted form, so the schemas are normalized object schemas.
 */
export async function loadPinnedTools(ctx: ServiceContext, agentVersionId: string): Promise<Map<string, ToolDefinition>> {
  const [version] = await ctx.db.select({ config: agentVersions.config }).from(agentVersions).where(eq(agentVersions.id, agentVersionId));
  if (!version) throw new Error(`agent version ${agentVersionId} does not exist`);
  const config = version.config as unknown as AgentConfig;
  return new Map([...config.tools, ...sandboxToolDefinitions(config.sandbox)].map((tool) => [tool.name, tool]));
}
