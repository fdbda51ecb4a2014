import { and, asc, eq, gt, isNull, or } from 'drizzle-orm';
import { modelProviders } from '../../db/schema/index.ts';
import { ValidationError } from '../../domain/errors.ts';
import { decodeKeysetCursor, toPage, type Page } from '../../domain/pagination.ts';
import type { ServiceContext } from '../context.ts';
import { requireActor } from '../require-actor.ts';
import { toModelProviderResponse, type PublicModelProvider } from './public.ts';

/** The organization's live provider connections, oldest first; removed ones leave the list. */
export async function listModelProviders({ ctx, input }: { ctx: ServiceContext; input: { limit: number; cursor?: string | undefined } }): Promise<Page<PublicModelProvider>> {
  const actor = requireActor(ctx);
  const after = input.cursor ? decodeKeysetCursor(input.cursor) : null;
  if (input.cursor && !after) throw new ValidationError('cursor is not valid', { path: 'query.cursor' });
  const rows = await ctx.db
    .select()
    .from(modelProviders)
    .where(
      and(
        eq(modelProviders.organizationId, actor.organizationId),
        isNull(modelProviders.removedAt),
        after ? or(gt(modelProviders.createdAt, after.createdAt), and(eq(modelProviders.createdAt, after.createdAt), gt(modelProviders.id, after.id))) : undefined,
      ),
    )
    .orderBy(asc(modelProviders.createdAt), asc(modelProviders.id))
    .limit(input.limit + 1);
  return toPage(rows, input.limit, toModelProviderResponse);
}
