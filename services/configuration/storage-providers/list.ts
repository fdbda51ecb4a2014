import { and, eq } from 'drizzle-orm';
import { storageProviders } from '../../../db/schema/index.ts';
import { toPage, type Page } from '../../../domain/pagination.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { keysetPage } from '../../kernel/keyset.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { toStorageProviderResponse, type PublicStorageProvider } from './public.ts';

/** The organization's storage connections, oldest first. */
export async function listStorageProviders({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { limit: number; cursor?: string | undefined };
}): Promise<Page<PublicStorageProvider>> {
  const actor = requireActor(ctx);
  const page = keysetPage({ createdAt: storageProviders.createdAt, id: storageProviders.id }, input.cursor, 'asc');
  const rows = await ctx.db
    .select()
    .from(storageProviders)
    .where(and(eq(storageProviders.organizationId, actor.organizationId), page.after))
    .orderBy(...page.orderBy)
    .limit(input.limit + 1);
  return toPage(rows, input.limit, toStorageProviderResponse);
}
