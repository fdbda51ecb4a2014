import type * as v from 'valibot';
import type { PublicMcpToolsetShape, PublicMcpToolsetVersionShape } from '../../../domain/public-shapes/mcp.ts';
import type { mcpToolsets, mcpToolsetVersions } from '../../../db/schema/index.ts';

export type McpToolsetRow = typeof mcpToolsets.$inferSelect;
export type McpToolsetVersionRow = typeof mcpToolsetVersions.$inferSelect;

export type PublicMcpToolsetVersion = v.InferOutput<typeof PublicMcpToolsetVersionShape>;

export type PublicMcpToolset = v.InferOutput<typeof PublicMcpToolsetShape>;

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
