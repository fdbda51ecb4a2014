import { and, eq, isNull } from 'drizzle-orm';
import { modelProviders } from '../../../db/schema/index.ts';
import { NotFoundError } from '../../../domain/errors.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import type { ModelProviderRow } from './public.ts';

/**
 * A live (not removed) provider connection of the organization, or 404: another
 * organization's connection and a removed one look the same. `lock` takes a row lock in the
 * caller's transaction (`update` for removal and rotation, `share` for preset creation, so a
 * removal cannot slip between the check and the insert).
 */
export async function loadLiveProvider(
  ctx: ServiceContext,
  input: { organizationId: string; providerId: string; lock?: 'update' | 'share' },
): Promise<ModelProviderRow> {
  const query = ctx.db
    .select()
    .from(modelProviders)
    .where(and(eq(modelProviders.id, input.providerId), eq(modelProviders.organizationId, input.organizationId), isNull(modelProviders.removedAt)));
  const [row] = input.lock ? await query.for(input.lock) : await query;
  if (!row) throw new NotFoundError('No model provider connection with that id in this organization');
  return row;
}
