import { and, eq, isNull } from 'drizzle-orm';
import { modelProviders } from '../../../db/schema/index.ts';

import { toPage, type Page } from '../../../domain/pagination.ts';
import { keysetPage } from '../../kernel/keyset.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { toModelProviderResponse, type PublicModelProvider } from './public.ts';

/** The organization's live provider connections, oldest first; removed ones leave the list. */
export async function listModelProviders({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { limit: number; cursor?: string | undefined };
}): Promise<Page<PublicModelProvider>> {
  const actor = requireActor(ctx);
  const page = keysetPage({ createdAt: modelProviders.createdAt, id: modelProviders.id }, input.cursor, 'asc');
  const rows = await ctx.db
    .select()
    .from(modelProviders)
    .where(and(eq(modelProviders.organizationId, actor.organizationId), isNull(modelProviders.removedAt), page.after))
    .orderBy(...page.orderBy)
    .limit(input.limit + 1);
  return toPage(rows, input.limit, toModelProviderResponse);
}
