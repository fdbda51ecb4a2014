import * as v from 'valibot';
import { memoryStores } from '../../../db/schema/index.ts';
import { CreateMemoryStoreInput } from '../../../domain/memory/index.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { toMemoryStoreResponse, type PublicMemoryStore } from './public.ts';
import { announceStore } from './announce-store.ts';

/** Creates a memory store of the actor's project (names need not be unique). */
export async function createMemoryStore({ ctx, input }: { ctx: ServiceContext; input: CreateMemoryStoreInput }): Promise<PublicMemoryStore> {
  const actor = requireActor(ctx);
  const body = v.parse(CreateMemoryStoreInput, input);
  return withTransaction(ctx, async (tx) => {
    const now = tx.clock.now();
    const [row] = await tx.db
      .insert(memoryStores)
      .values({ organizationId: actor.organizationId, projectId: actor.projectId, ...body, createdAt: now, updatedAt: now })
      .returning();
    await announceStore(tx, row!, 'created');
    return toMemoryStoreResponse(row!);
  });
}
