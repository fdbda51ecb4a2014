import { eq } from 'drizzle-orm';
import { memoryStores } from '../../../db/schema/index.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { findMemoryStore } from './load.ts';
import { toMemoryStoreResponse, type PublicMemoryStore } from './public.ts';
import { announceStore } from './announce-store.ts';

/** Archives a store for good: its memories stay readable and deletable, nothing can be written. Archiving again is a no-op. */
export async function archiveMemoryStore({ ctx, input }: { ctx: ServiceContext; input: { storeId: string } }): Promise<PublicMemoryStore> {
  const actor = requireActor(ctx);
  return withTransaction(ctx, async (tx) => {
    const store = await findMemoryStore(tx, actor, input.storeId, { lock: true });
    if (store.archivedAt) return toMemoryStoreResponse(store);
    const now = tx.clock.now();
    const [row] = await tx.db.update(memoryStores).set({ archivedAt: now, updatedAt: now }).where(eq(memoryStores.id, store.id)).returning();
    await announceStore(tx, row!, 'archived');
    return toMemoryStoreResponse(row!);
  });
}
