import type { mcpToolsets, mcpToolsetVersions } from '../../db/schema/index.ts';
import type { McpToolApproval } from '../../domain/mcp/types.ts';

export type McpToolsetRow = typeof mcpToolsets.$inferSelect;
export type McpToolsetVersionRow = typeof mcpToolsetVersions.$inferSelect;

export type PublicMcpToolsetVersion = {
  id: string;
  toolsetId: string;
  version: number;
  displayName: string;
  /** The server version it is pinned to, for good. */
  serverVersionId: string;
  tools: Array<{ remoteToolName: string; approval: McpToolApproval }>;
  createdAt: string;
};

export type PublicMcpToolset = {
  id: string;
  projectId: string;
  key: string;
  latestVersion: number;
  latestVersionId: string;
  /** Every version, newest first. */
  versions: PublicMcpToolsetVersion[];
  createdAt: string;
};

export const toMcpToolsetVersionResponse = (row: McpToolsetVersionRow): PublicMcpToolsetVersion => ({
  id: row.id,
  toolsetId: row.toolsetId,
  version: row.version,
  displayName: row.displayName,
  serverVersionId: row.serverVersionId,
  tools: row.tools,
  createdAt: row.createdAt.toISOString(),
});

export function toMcpToolsetResponse(row: McpToolsetRow, versions: readonly McpToolsetVersionRow[]): PublicMcpToolset {
  const ordered = [...versions].sort((a, b) => b.version - a.version);
  const latest = ordered.find((version) => version.version === row.latestVersion);
  if (!latest) throw new Error(`MCP toolset ${row.id} has no version ${row.latestVersion}`);
  return {
    id: row.id,
    projectId: row.projectId,
    key: row.key,
    latestVersion: row.latestVersion,
    latestVersionId: latest.id,
    versions: ordered.map(toMcpToolsetVersionResponse),
    createdAt: row.createdAt.toISOString(),
  };
}
