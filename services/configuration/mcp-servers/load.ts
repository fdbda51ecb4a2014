import { and, eq, inArray } from 'drizzle-orm';
import { mcpServers, mcpServerVersions } from '../../../db/schema/index.ts';
import { NotFoundError } from '../../../domain/errors.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import type { McpServerRow, McpServerVersionRow } from './public.ts';

/** A server of the actor's organization (404 otherwise), optionally locked for a new version. */
export async function findMcpServer(ctx: ServiceContext, serverId: string, options: { forUpdate?: boolean } = {}): Promise<McpServerRow> {
  const actor = requireActor(ctx);
  const query = ctx.db
    .select()
    .from(mcpServers)
    .where(and(eq(mcpServers.id, serverId), eq(mcpServers.organizationId, actor.organizationId)));
  const [row] = options.forUpdate ? await query.for('update') : await query;
  if (!row) throw new NotFoundError('MCP server not found');
  return row;
}

/** The versions of these servers, grouped by server id. */
export async function versionsOfServers(ctx: ServiceContext, serverIds: readonly string[]): Promise<Map<string, McpServerVersionRow[]>> {
  const grouped = new Map<string, McpServerVersionRow[]>(serverIds.map((id) => [id, []]));
  if (serverIds.length === 0) return grouped;
  const rows = await ctx.db
    .select()
    .from(mcpServerVersions)
    .where(inArray(mcpServerVersions.serverId, [...serverIds]));
  for (const row of rows) grouped.get(row.serverId)?.push(row);
  return grouped;
}

/** A server version of the actor's organization with its server (404 otherwise). */
export async function findMcpServerVersion(
  ctx: ServiceContext,
  serverVersionId: string,
): Promise<{ server: McpServerRow; version: McpServerVersionRow } | null> {
  const actor = requireActor(ctx);
  const [row] = await ctx.db
    .select({ server: mcpServers, version: mcpServerVersions })
    .from(mcpServerVersions)
    .innerJoin(mcpServers, eq(mcpServers.id, mcpServerVersions.serverId))
    .where(and(eq(mcpServerVersions.id, serverVersionId), eq(mcpServerVersions.organizationId, actor.organizationId)));
  return row ?? null;
}
