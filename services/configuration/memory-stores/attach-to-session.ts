import { and, eq, inArray } from 'drizzle-orm';
import { memoryStores } from '../../../db/schema/index.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../../domain/errors.ts';
import { attachMemoryStores, type AttachedMemoryStore, type SessionMemoryStoresInput } from '../../../domain/memory/index.ts';
import type { Actor, ServiceContext } from '../../kernel/service-context.ts';

/**
 * The attachments of a new session (in its creation's transaction), as they are kept on it:
 * each store must be of the session's project (404 otherwise, as on every memory route), and an
 * archived one can be attached `read_only` only (409). No stores, no statement.
 */
export async function attachSessionMemoryStores(tx: ServiceContext, actor: Actor, input: SessionMemoryStoresInput): Promise<AttachedMemoryStore[]> {
  if (input.length === 0) return [];
  const rows = await tx.db
    .select({ id: memoryStores.id, name: memoryStores.name, description: memoryStores.description, archivedAt: memoryStores.archivedAt })
    .from(memoryStores)
    .where(
      and(
        inArray(
          memoryStores.id,
          input.map((entry) => entry.storeId),
        ),
        eq(memoryStores.organizationId, actor.organizationId),
        eq(memoryStores.projectId, actor.projectId),
      ),
    );
  const found = new Map(rows.map((row) => [row.id, row]));
  for (const [index, entry] of input.entries()) {
    const store = found.get(entry.storeId);
    const path = `body.memoryStores.${index}.storeId`;
    if (!store) throw new NotFoundError('Memory store not found', { path });
    if (store.archivedAt && entry.access === 'read_write') {
      throw new ConflictError('The memory store is archived: attach it read_only', { reason: 'memory_store_archived', path });
    }
  }
  const result = attachMemoryStores(input, found);
  if ('problem' in result) throw new ValidationError(`memoryStores: ${result.problem}`, { path: `body.memoryStores.${result.index}` });
  return result.attached;
}
