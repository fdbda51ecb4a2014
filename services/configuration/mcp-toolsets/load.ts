import { inArray } from 'drizzle-orm';
import { mcpToolsetVersions } from '../../../db/schema/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import type { McpToolsetVersionRow } from './public.ts';

/** The versions of these toolsets, grouped by toolset id. */
export async function versionsOfToolsets(ctx: ServiceContext, toolsetIds: readonly string[]): Promise<Map<string, McpToolsetVersionRow[]>> {
  const grouped = new Map<string, McpToolsetVersionRow[]>(toolsetIds.map((id) => [id, []]));
  if (toolsetIds.length === 0) return grouped;
  const rows = await ctx.db
    .select()
    .from(mcpToolsetVersions)
    .where(inArray(mcpToolsetVersions.toolsetId, [...toolsetIds]));
  for (const row of rows) grouped.get(row.toolsetId)?.push(row);
  return grouped;
}
