import { and, eq } from 'drizzle-orm';
import { mcpToolsets } from '../../../db/schema/index.ts';
import { toPage, type Page } from '../../../domain/pagination.ts';
import { keysetPage } from '../../kernel/keyset.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { versionsOfToolsets } from './load.ts';
import { toMcpToolsetResponse, type PublicMcpToolset } from './public.ts';

/** The project's toolsets, oldest first, each with all its versions. */
export async function listMcpToolsets({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { limit: number; cursor?: string | undefined };
}): Promise<Page<PublicMcpToolset>> {
  const actor = requireActor(ctx);
  const page = keysetPage({ createdAt: mcpToolsets.createdAt, id: mcpToolsets.id }, input.cursor, 'asc');
  const rows = await ctx.db
    .select()
    .from(mcpToolsets)
    .where(and(eq(mcpToolsets.projectId, actor.projectId), page.after))
    .orderBy(...page.orderBy)
    .limit(input.limit + 1);
  const versions = await versionsOfToolsets(
    ctx,
    rows.slice(0, input.limit).map((row) => row.id),
  );
  return toPage(rows, input.limit, (row) => toMcpToolsetResponse(row, versions.get(row.id) ?? []));
}
