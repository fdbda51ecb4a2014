import type { ServiceContext } from '../../kernel/service-context.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { findMemory, findMemoryStore } from './load.ts';
import { toMemoryResponse, type MemoryView, type PublicMemory } from './public.ts';

export async function getMemory({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { storeId: string; memoryId: string; view?: MemoryView | undefined };
}): Promise<PublicMemory> {
  const actor = requireActor(ctx);
  const store = await findMemoryStore(ctx, actor, input.storeId);
  return toMemoryResponse(await findMemory(ctx, store, input.memoryId), input.view ?? 'full');
}
