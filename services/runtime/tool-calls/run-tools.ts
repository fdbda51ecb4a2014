import { eq, sql, type SQL } from 'drizzle-orm';
import { rowsOf } from '../../../db/client.ts';
import { agentVersions, runs, sessions } from '../../../db/schema/index.ts';
import { memoryToolDefinitions, type AttachedMemoryStore } from '../../../domain/memory/index.ts';
import type { AgentConfig, ToolDefinition } from '../../../domain/agent-config/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { sandboxToolDefinitions } from '../../../domain/sandbox/tools.ts';
import { loadMcpBindings, mcpToolDefinitions } from '../../configuration/mcp-toolsets/index.ts';
import { loadSkillToolDefinition } from '../../../domain/skills/catalog.ts';
import { operationToolDefinition } from '../../../domain/runs/harness-operations.ts';
import { delegationToolDefinitions } from '../../../domain/runs/delegation.ts';

/**
 * The run's pinned version and its caller and platform tools (the version's, and the memory tools
 * when its session attached stores) by name; the run, the version's config and the session's
 * stores in one statement. Stored configs are the parsed, defaulted form, so the schemas are
 * normalized object schemas.
 */
export async function loadRunTools(ctx: ServiceContext, runId: string): Promise<{ agentVersionId: string; tools: Map<string, ToolDefinition> }> {
  const [run] = await ctx.db
    .select({ agentVersionId: runs.agentVersionId, pinned: pinnedToolColumns(sql`${runs.sessionId}`) })
    .from(runs)
    .innerJoin(agentVersions, eq(agentVersions.id, runs.agentVersionId))
    .where(eq(runs.id, runId));
  if (!run) throw new Error(`run ${runId} does not exist`);
  return { agentVersionId: run.agentVersionId, tools: await pinnedToolsOf(ctx, run.pinned) };
}

/** What the tools are mounted from, as columns a select of the version carries (so the read is its caller's). */
export function pinnedToolColumns(sessionId: string | SQL) {
  const session = typeof sessionId === 'string' ? sql`${sessionId}::uuid` : sessionId;
  return {
    config: agentVersions.config,
    memoryStores: sql<AttachedMemoryStore[]>`(select ${sessions.memoryStores} from ${sessions} where ${sessions.id} = ${session})`,
    selfCopy: sql<boolean>`(select ${selfCopyOf(session)})`,
  };
}

/** The tools by name from what `pinnedToolColumns` read. */
export async function pinnedToolsOf(
  ctx: ServiceContext,
  version: { config: unknown; memoryStores: AttachedMemoryStore[] | null; selfCopy: boolean },
): Promise<Map<string, ToolDefinition>> {
  const tools = await mountedTools(ctx, version.config as unknown as AgentConfig, version.memoryStores ?? [], { delegation: !version.selfCopy });
  return new Map(tools.map((tool) => [tool.name, tool]));
}

/**
 * Whether the session is a `self` delegate's child: a delegated session running its coordinator's
 * own version. It mounts no delegation tools (depth limit 1: a copy of a coordinator does not
 * delegate again).
 */
export async function isSelfCopy(ctx: ServiceContext, session: { id: string; parentSessionId: string | null }): Promise<boolean> {
  if (!session.parentSessionId) return false;
  const [row] = rowsOf<{ self_copy: boolean }>(await ctx.db.execute(sql`select ${selfCopyOf(sql`${session.id}::uuid`)} as self_copy`));
  return row?.self_copy === true;
}

const selfCopyOf = (sessionId: SQL) =>
  sql`exists (select 1 from sessions copy join sessions coordinator on coordinator.id = copy.parent_session_id
    where copy.id = ${sessionId} and coordinator.agent_version_id = copy.agent_version_id)`;

/**
 * Every tool a run of this config mounts, in the order the model is shown them: the config's
 * own tools, its Harness Operations, the delegation tools when it has delegates (and is not a
 * `self` delegate's child, `isSelfCopy`), the sandbox
 * tools of its capabilities, the Skill loader when it binds Skills, then
 * the memory tools when the session attached memory stores, then the tools of its MCP bindings
 * (one read of the pinned toolset and server versions when it has any).
 */
export async function mountedTools(
  ctx: ServiceContext,
  config: AgentConfig,
  memoryStores: readonly AttachedMemoryStore[],
  options: { delegation: boolean },
): Promise<ToolDefinition[]> {
  const mcp = mcpToolDefinitions(await loadMcpBindings(ctx.db, config));
  const skills = config.skillVersionIds.length > 0 ? [loadSkillToolDefinition] : [];
  const operations = config.harnessOperations.map(operationToolDefinition);
  const memory = memoryStores.length > 0 ? memoryToolDefinitions : [];
  return [
    ...config.tools,
    ...operations,
    ...(options.delegation ? delegationToolDefinitions(config.delegates) : []),
    ...sandboxToolDefinitions(config.sandbox),
    ...skills,
    ...memory,
    ...mcp,
  ];
}
