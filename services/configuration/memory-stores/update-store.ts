import * as v from 'valibot';
import { eq } from 'drizzle-orm';
import { memoryStores } from '../../../db/schema/index.ts';
import { ValidationError } from '../../../domain/errors.ts';
import { MEMORY_STORE_METADATA_MAX_PAIRS, UpdateMemoryStoreInput } from '../../../domain/memory/index.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { findMemoryStore } from './load.ts';
import { toMemoryStoreResponse, type PublicMemoryStore } from './public.ts';
import { announceStore } from './announce-store.ts';

/**
 * Changes a store's name, description or metadata (a change set: a key set to null is removed;
 * at most 16 pairs after it). An archived store is read-only (409).
 */
export async function updateMemoryStore({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { storeId: string } & UpdateMemoryStoreInput;
}): Promise<PublicMemoryStore> {
  const actor = requireActor(ctx);
  const { storeId, ...body } = input;
  const change = v.parse(UpdateMemoryStoreInput, body);
  return withTransaction(ctx, async (tx) => {
    const store = await findMemoryStore(tx, actor, storeId, { lock: true, writable: true });
    const metadata = { ...store.metadata };
    for (const [key, value] of Object.entries(change.metadata ?? {})) {
      if (value === null) delete metadata[key];
      else metadata[key] = value;
    }
    if (Object.keys(metadata).length > MEMORY_STORE_METADATA_MAX_PAIRS) {
      throw new ValidationError(`metadata may hold at most ${MEMORY_STORE_METADATA_MAX_PAIRS} pairs after the change`, { path: 'body.metadata' });
    }
    const next = { name: change.name ?? store.name, description: change.description ?? store.description, metadata };
    if (next.name === store.name && next.description === store.description && JSON.stringify(next.metadata) === JSON.stringify(store.metadata)) {
      return toMemoryStoreResponse(store);
    }
    const [row] = await tx.db
      .update(memoryStores)
      .set({ ...next, updatedAt: tx.clock.now() })
      .where(eq(memoryStores.id, store.id))
      .returning();
    await announceStore(tx, row!, 'updated', { fields: Object.keys(change) });
    return toMemoryStoreResponse(row!);
  });
}
