import { eq, and } from 'drizzle-orm';
import { mcpServers } from '../../../db/schema/index.ts';
import { toPage, type Page } from '../../../domain/pagination.ts';
import { keysetPage } from '../../kernel/keyset.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { versionsOfServers } from './load.ts';
import { toMcpServerResponse, type PublicMcpServer } from './public.ts';

/** The organization's MCP servers, oldest first, each with every version's tool snapshot. */
export async function listMcpServers({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { limit: number; cursor?: string | undefined };
}): Promise<Page<PublicMcpServer>> {
  const actor = requireActor(ctx);
  const page = keysetPage({ createdAt: mcpServers.createdAt, id: mcpServers.id }, input.cursor, 'asc');
  const rows = await ctx.db
    .select()
    .from(mcpServers)
    .where(and(eq(mcpServers.organizationId, actor.organizationId), page.after))
    .orderBy(...page.orderBy)
    .limit(input.limit + 1);
  const versions = await versionsOfServers(
    ctx,
    rows.slice(0, input.limit).map((row) => row.id),
  );
  return toPage(rows, input.limit, (row) => toMcpServerResponse(row, versions.get(row.id) ?? []));
}
