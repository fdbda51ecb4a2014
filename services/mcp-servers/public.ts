import type { mcpServers, mcpServerVersions } from '../../db/schema/index.ts';
import type { McpToolSnapshotEntry, McpTransport } from '../../domain/mcp/types.ts';

export type McpServerRow = typeof mcpServers.$inferSelect;
export type McpServerVersionRow = typeof mcpServerVersions.$inferSelect;

export type PublicMcpServerVersion = {
  id: string;
  serverId: string;
  version: number;
  /** The discovered tool snapshot: name, description and input schema as the server gave them. */
  tools: McpToolSnapshotEntry[];
  /** null until a discovery produced this snapshot (version 1 of a never-discovered server). */
  discoveredAt: string | null;
  createdAt: string;
};

export type PublicMcpServer = {
  id: string;
  organizationId: string;
  key: string;
  displayName: string;
  endpointUrl: string;
  transport: McpTransport;
  latestVersion: number;
  latestVersionId: string;
  /** Every version, newest first. */
  versions: PublicMcpServerVersion[];
  createdAt: string;
};

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
