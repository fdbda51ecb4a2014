import { inArray, eq } from 'drizzle-orm';
import type { Executor } from '../../../db/client.ts';
import { mcpServers, mcpServerVersions, mcpToolsetVersions } from '../../../db/schema/index.ts';
import { mcpToolName, type AgentConfig, type ToolDefinition } from '../../../domain/agent-config/index.ts';
import type { McpToolApproval, McpToolSnapshotEntry, McpTransport } from '../../../domain/mcp/types.ts';

/** One `mcpBindings` entry with what it pins: the toolset version's tools, their server version and server. */
export type LoadedMcpBinding = {
  namespace: string;
  credentialPolicyVersionId: string;
  toolsetVersionId: string;
  server: { id: string; key: string; endpointUrl: string; transport: McpTransport };
  serverVersion: { id: string; version: number };
  tools: Array<{ remoteToolName: string; approval: McpToolApproval; snapshot: McpToolSnapshotEntry }>;
};

/**
 * The MCP bindings of an agent version's config, in authored order, with the pinned toolset
 * and server versions (immutable rows, so a run sees the same tools from start to end). A tool a
 * toolset selected is always in its server version's snapshot (checked at toolset creation).
 */
export async function loadMcpBindings(db: Executor, config: Pick<AgentConfig, 'mcpBindings'>): Promise<LoadedMcpBinding[]> {
  if (config.mcpBindings.length === 0) return [];
  const rows = await db
    .select({ toolsetVersion: mcpToolsetVersions, serverVersion: mcpServerVersions, server: mcpServers })
    .from(mcpToolsetVersions)
    .innerJoin(mcpServerVersions, eq(mcpServerVersions.id, mcpToolsetVersions.serverVersionId))
    .innerJoin(mcpServers, eq(mcpServers.id, mcpServerVersions.serverId))
    .where(
      inArray(
        mcpToolsetVersions.id,
        config.mcpBindings.map((binding) => binding.toolsetVersionId),
      ),
    );
  const byId = new Map(rows.map((row) => [row.toolsetVersion.id, row]));
  return config.mcpBindings.map((binding) => {
    const row = byId.get(binding.toolsetVersionId);
    if (!row) throw new Error(`MCP toolset version ${binding.toolsetVersionId} of a published config does not exist`);
    const snapshots = new Map(row.serverVersion.tools.map((tool) => [tool.name, tool]));
    return {
      namespace: binding.namespace,
      credentialPolicyVersionId: binding.credentialPolicyVersionId,
      toolsetVersionId: binding.toolsetVersionId,
      server: { id: row.server.id, key: row.server.key, endpointUrl: row.server.endpointUrl, transport: row.server.transport },
      serverVersion: { id: row.serverVersion.id, version: row.serverVersion.version },
      tools: row.toolsetVersion.tools.map((tool) => ({ ...tool, snapshot: snapshots.get(tool.remoteToolName)! })),
    };
  });
}

/**
 * The tools the model sees for the bindings: `mcp__<namespace>__<remote_tool_name>`, the remote
 * description and input schema as the server gave them, platform-owned (the worker calls the
 * server), gated by the toolset entry's approval. Results are free-form objects.
 */
export function mcpToolDefinitions(bindings: readonly LoadedMcpBinding[]): ToolDefinition[] {
  return bindings.flatMap((binding) =>
    binding.tools.map((tool) => ({
      schemaVersion: 1 as const,
      name: mcpToolName(binding.namespace, tool.remoteToolName),
      description: tool.snapshot.description ?? `${tool.remoteToolName} (MCP server "${binding.server.key}")`,
      owner: 'platform' as const,
      approval: tool.approval,
      inputSchema: tool.snapshot.inputSchema as ToolDefinition['inputSchema'],
      outputSchema: { type: 'object' as const, properties: {}, required: [], additionalProperties: true },
    })),
  );
}
