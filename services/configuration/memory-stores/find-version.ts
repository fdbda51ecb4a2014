import { and, eq } from 'drizzle-orm';
import { memoryVersions } from '../../../db/schema/index.ts';
import { NotFoundError } from '../../../domain/errors.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { type MemoryStoreRow } from './public.ts';

export async function findMemoryVersion(ctx: ServiceContext, store: MemoryStoreRow, versionId: string, lock = false) {
  const query = ctx.db
    .select()
    .from(memoryVersions)
    .where(and(eq(memoryVersions.id, versionId), eq(memoryVersions.storeId, store.id)));
  const [row] = lock ? await query.for('update') : await query;
  if (!row) throw new NotFoundError('Memory version not found');
  return row;
}
