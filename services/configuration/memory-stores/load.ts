import { and, eq } from 'drizzle-orm';
import { memories, memoryStores } from '../../../db/schema/index.ts';
import { ConflictError, NotFoundError } from '../../../domain/errors.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import type { MemoryRow, MemoryStoreRow } from './public.ts';

type Scope = { organizationId: string; projectId: string };

/**
 * The project's store, or 404 (another project's store is not there). `lock` takes its row:
 * every write of a store's memories holds it, so paths, counters and versions of one store
 * change one transaction at a time. `writable` refuses an archived store (409).
 */
export async function findMemoryStore(
  ctx: ServiceContext,
  scope: Scope,
  storeId: string,
  options: { lock?: boolean; writable?: boolean } = {},
): Promise<MemoryStoreRow> {
  const query = ctx.db
    .select()
    .from(memoryStores)
    .where(and(eq(memoryStores.id, storeId), eq(memoryStores.organizationId, scope.organizationId), eq(memoryStores.projectId, scope.projectId)));
  const [row] = options.lock ? await query.for('update') : await query;
  if (!row) throw new NotFoundError('Memory store not found');
  if (options.writable && row.archivedAt) throw new ConflictError('The memory store is archived: it is read-only', { reason: 'memory_store_archived' });
  return row;
}

/** A memory of the store, or 404. */
export async function findMemory(ctx: ServiceContext, store: MemoryStoreRow, memoryId: string): Promise<MemoryRow> {
  const [row] = await ctx.db
    .select()
    .from(memories)
    .where(and(eq(memories.id, memoryId), eq(memories.storeId, store.id)));
  if (!row) throw new NotFoundError('Memory not found');
  return row;
}
