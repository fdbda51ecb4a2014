import { and, eq, isNull } from 'drizzle-orm';
import { memoryStores } from '../../../db/schema/index.ts';
import { toPage, type Page } from '../../../domain/pagination.ts';
import { keysetPage } from '../../kernel/keyset.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { toMemoryStoreResponse, type PublicMemoryStore } from './public.ts';

/** The project's stores, newest first; archived ones only when asked for. */
export async function listMemoryStores({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { limit: number; cursor?: string | undefined; includeArchived?: boolean };
}): Promise<Page<PublicMemoryStore>> {
  const actor = requireActor(ctx);
  const page = keysetPage({ createdAt: memoryStores.createdAt, id: memoryStores.id }, input.cursor, 'desc');
  const rows = await ctx.db
    .select()
    .from(memoryStores)
    .where(
      and(
        eq(memoryStores.organizationId, actor.organizationId),
        eq(memoryStores.projectId, actor.projectId),
        input.includeArchived ? undefined : isNull(memoryStores.archivedAt),
        page.after,
      ),
    )
    .orderBy(...page.orderBy)
    .limit(input.limit + 1);
  return toPage(rows, input.limit, toMemoryStoreResponse);
}
