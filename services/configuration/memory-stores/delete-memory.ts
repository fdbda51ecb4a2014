import type { ServiceContext } from '../../kernel/service-context.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { findMemory, findMemoryStore } from './load.ts';
import { applyMemoryChange } from './write-memory.ts';
import { principalAuthor } from './author.ts';

/** Deletes a memory (its versions stay, with a `deleted` one last), optionally only if its content has a given SHA-256. */
export async function deleteMemory({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { storeId: string; memoryId: string; expectedContentSha256?: string | undefined };
}): Promise<{ id: string; deleted: true }> {
  const actor = requireActor(ctx);
  return withTransaction(ctx, async (tx) => {
    // Deleting is allowed in an archived store (it only takes away).
    const store = await findMemoryStore(tx, actor, input.storeId, { lock: true });
    const current = await findMemory(tx, store, input.memoryId);
    await applyMemoryChange(tx, {
      store,
      author: principalAuthor(actor),
      change: { kind: 'delete', memory: current, expectedSha256: input.expectedContentSha256 },
    });
    return { id: current.id, deleted: true as const };
  });
}
