import { and, eq } from 'drizzle-orm';
import { storageProviders } from '../../../db/schema/index.ts';
import { NotFoundError } from '../../../domain/errors.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import type { StorageProviderRow } from './public.ts';

/** A storage connection of the organization, or 404 (another organization's looks the same). */
export async function loadStorageProvider(
  ctx: ServiceContext,
  input: { organizationId: string; providerId: string; lock?: boolean },
): Promise<StorageProviderRow> {
  const query = ctx.db
    .select()
    .from(storageProviders)
    .where(and(eq(storageProviders.id, input.providerId), eq(storageProviders.organizationId, input.organizationId)));
  const [row] = input.lock ? await query.for('update') : await query;
  if (!row) throw new NotFoundError('No storage provider connection with that id in this organization');
  return row;
}

/** The organization's default connection, if it has one. */
export async function findDefaultStorageProvider(ctx: ServiceContext, organizationId: string): Promise<StorageProviderRow | null> {
  const [row] = await ctx.db
    .select()
    .from(storageProviders)
    .where(and(eq(storageProviders.organizationId, organizationId), eq(storageProviders.isDefault, true)));
  return row ?? null;
}
