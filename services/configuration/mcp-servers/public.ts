import type * as v from 'valibot';
import type { PublicMcpServerShape, PublicMcpServerVersionShape } from '../../../domain/public-shapes/mcp.ts';
import type { mcpServers, mcpServerVersions } from '../../../db/schema/index.ts';

export type McpServerRow = typeof mcpServers.$inferSelect;
export type McpServerVersionRow = typeof mcpServerVersions.$inferSelect;

export type PublicMcpServerVersion = v.InferOutput<typeof PublicMcpServerVersionShape>;

export type PublicMcpServer = v.InferOutput<typeof PublicMcpServerShape>;

export const toMcpServerVersionResponse = (row: McpServerVersionRow): PublicMcpServerVersion => ({
  id: row.id,
  serverId: row.serverId,
  version: row.version,
  tools: row.tools,
  discoveredAt: row.discoveredAt?.toISOString() ?? null,
  createdAt: row.createdAt.toISOString(),
});

/** `versions` must be the server's versions; they are shown newest first. */
export function toMcpServerResponse(row: McpServerRow, versions: readonly McpServerVersionRow[]): PublicMcpServer {
  const ordered = [...versions].sort((a, b) => b.version - a.version);
  const latest = ordered.find((version) => version.version === row.latestVersion);
  if (!latest) throw new Error(`MCP server ${row.id} has no version ${row.latestVersion}`);
  return {
    id: row.id,
    organizationId: row.organizationId,
    key: row.key,
    displayName: row.displayName,
    endpointUrl: row.endpointUrl,
    transport: row.transport,
    latestVersion: row.latestVersion,
    latestVersionId: latest.id,
    versions: ordered.map(toMcpServerVersionResponse),
    createdAt: row.createdAt.toISOString(),
  };
}
