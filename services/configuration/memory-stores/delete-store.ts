import { eq } from 'drizzle-orm';
import { memoryStores } from '../../../db/schema/index.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { findMemoryStore } from './load.ts';
import { announceStore } from './announce-store.ts';

/** Deletes a store with its memories and every version, for good. Deleting again is a 404. */
export async function deleteMemoryStore({ ctx, input }: { ctx: ServiceContext; input: { storeId: string } }): Promise<{ id: string; deleted: true }> {
  const actor = requireActor(ctx);
  return withTransaction(ctx, async (tx) => {
    const store = await findMemoryStore(tx, actor, input.storeId, { lock: true });
    await tx.db.delete(memoryStores).where(eq(memoryStores.id, store.id));
    await announceStore(tx, store, 'deleted', { memories: store.memoryCount, versions: store.versionCount });
    return { id: store.id, deleted: true as const };
  });
}
