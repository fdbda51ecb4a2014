import { requireActor } from '../../kernel/require-actor.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { findMemoryStore } from './load.ts';
import { toMemoryStoreResponse, type PublicMemoryStore } from './public.ts';

export async function getMemoryStore({ ctx, input }: { ctx: ServiceContext; input: { storeId: string } }): Promise<PublicMemoryStore> {
  return toMemoryStoreResponse(await findMemoryStore(ctx, requireActor(ctx), input.storeId));
}
