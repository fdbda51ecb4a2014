import * as v from 'valibot';
import { CreateMemoryInput } from '../../../domain/memory/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { findMemoryStore } from './load.ts';
import { toMemoryResponse, type MemoryView, type PublicMemory } from './public.ts';
import { applyMemoryChange } from './write-memory.ts';
import { principalAuthor } from './author.ts';

export async function createMemory({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { storeId: string; view?: MemoryView | undefined } & CreateMemoryInput;
}): Promise<PublicMemory> {
  const actor = requireActor(ctx);
  const body = v.parse(CreateMemoryInput, { path: input.path, content: input.content });
  return withTransaction(ctx, async (tx) => {
    const store = await findMemoryStore(tx, actor, input.storeId, { lock: true, writable: true });
    const { memory } = await applyMemoryChange(tx, { store, author: principalAuthor(actor), change: { kind: 'create', ...body } });
    return toMemoryResponse(memory!, input.view ?? 'basic');
  });
}
