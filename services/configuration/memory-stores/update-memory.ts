import * as v from 'valibot';
import { UpdateMemoryInput } from '../../../domain/memory/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { findMemory, findMemoryStore } from './load.ts';
import { toMemoryResponse, type MemoryView, type PublicMemory } from './public.ts';
import { applyMemoryChange } from './write-memory.ts';
import { principalAuthor } from './author.ts';

/**
 * New content, a new path (a rename; the id stays), or both, optionally on the condition that
 * the current content has a given SHA-256 (409 when it no longer has).
 */
export async function updateMemory({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { storeId: string; memoryId: string; view?: MemoryView | undefined } & UpdateMemoryInput;
}): Promise<PublicMemory> {
  const actor = requireActor(ctx);
  const { storeId, memoryId, view, ...rest } = input;
  const body = v.parse(UpdateMemoryInput, rest);
  return withTransaction(ctx, async (tx) => {
    const store = await findMemoryStore(tx, actor, storeId, { lock: true, writable: true });
    const current = await findMemory(tx, store, memoryId);
    const change = { kind: 'update' as const, memory: current, path: body.path, content: body.content, expectedSha256: body.precondition?.contentSha256 };
    const { memory } = await applyMemoryChange(tx, { store, author: principalAuthor(actor), change });
    return toMemoryResponse(memory!, view ?? 'basic');
  });
}
