import { eq } from 'drizzle-orm';
import { agentVersions } from '../../../db/schema/index.ts';
import type { AgentConfig, ToolDefinition } from '../../../domain/agent-config/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { sandboxToolDefinitions } from '../../../domain/sandbox/tools.ts';
import { loadMcpBindings, mcpToolDefinitions } from '../../configuration/mcp-toolsets/index.ts';
import { loadSkillToolDefinition } from '../../../domain/skills/catalog.ts';
import { operationToolDefinition } from '../../../domain/runs/harness-operations.ts';
import { delegationToolDefinitions } from '../../../domain/runs/delegation.ts';

/**
 * The caller and platform tools of the run's pinned agent version, by name. Stored configs are
 * the parsed, defaulted form, so the schemas are normalized object schemas.
 */
export async function loadPinnedTools(ctx: ServiceContext, agentVersionId: string): Promise<Map<string, ToolDefinition>> {
  const [version] = await ctx.db.select({ config: agentVersions.config }).from(agentVersions).where(eq(agentVersions.id, agentVersionId));
  if (!version) throw new Error(`agent version ${agentVersionId} does not exist`);
  return new Map((await mountedTools(ctx, version.config as unknown as AgentConfig)).map((tool) => [tool.name, tool]));
}

/**
 * Every tool a run of this config mounts, in the order the model is shown them: the config's
 * own tools, its Harness Operations, the delegation tools when it has delegates, the sandbox
 * tools of its capabilities, the Skill loader when it binds Skills, then
 * the tools of its MCP bindings (one read of the pinned toolset and server versions when it has
 * any).
 */
export async function mountedTools(ctx: ServiceContext, config: AgentConfig): Promise<ToolDefinition[]> {
  const mcp = mcpToolDefinitions(await loadMcpBindings(ctx.db, config));
  const skills = config.skillVersionIds.length > 0 ? [loadSkillToolDefinition] : [];
  const operations = config.harnessOperations.map(operationToolDefinition);
  return [...config.tools, ...operations, ...delegationToolDefinitions(config.delegates), ...sandboxToolDefinitions(config.sandbox), ...skills, ...mcp];
}
