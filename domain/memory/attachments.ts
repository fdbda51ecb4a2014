import * as v from 'valibot';
import { SESSION_MEMORY_STORES_MAX } from './limits.ts';
import { memoryMountPath, memoryStoreSlug } from './path.ts';

export const MEMORY_ACCESS = ['read_write', 'read_only'] as const;
export type MemoryAccess = (typeof MEMORY_ACCESS)[number];
/** The SDK's bound on an attachment's guidance for the agent. */
export const MEMORY_INSTRUCTIONS_MAX_CHARS = 4_096;

/**
 * `memoryStores` of `POST /sessions` (docs/decisions/memory-stores.md): at most 8 stores of the
 * session's project, each once, `read_write` unless said otherwise.
 */
export const SessionMemoryStoresInput = v.pipe(
  v.array(
    v.strictObject({
      storeId: v.pipe(v.string(), v.uuid('storeId must be a UUID')),
      access: v.optional(v.picklist(MEMORY_ACCESS, 'access must be read_write or read_only'), 'read_write'),
      instructions: v.optional(
        v.nullable(v.pipe(v.string(), v.maxLength(MEMORY_INSTRUCTIONS_MAX_CHARS, `instructions must be at most ${MEMORY_INSTRUCTIONS_MAX_CHARS} characters`))),
      ),
    }),
    'memoryStores must be an array of {storeId, access, instructions}',
  ),
  v.maxLength(SESSION_MEMORY_STORES_MAX, `a session may attach at most ${SESSION_MEMORY_STORES_MAX} memory stores`),
  v.check((list) => new Set(list.map((entry) => entry.storeId)).size === list.length, 'memoryStores names a store twice'),
);
export type SessionMemoryStoresInput = v.InferOutput<typeof SessionMemoryStoresInput>;

/**
 * A store as a session attached it, kept on the session for its life: the store's name and
 * description as they were at attachment (what the model was told), the directory it goes by
 * (`mount`, also the name the memory tools take), the access and the guidance.
 */
export type AttachedMemoryStore = {
  storeId: string;
  name: string;
  description: string;
  mount: string;
  mountPath: string;
  access: MemoryAccess;
  instructions: string | null;
};

/**
 * The attachments of a session from the stores they name (found in its project, in input
 * order), or why not: two stores whose names give the same directory cannot both be attached.
 */
export function attachMemoryStores(
  input: SessionMemoryStoresInput,
  stores: ReadonlyMap<string, { name: string; description: string }>,
): { attached: AttachedMemoryStore[] } | { problem: string; index: number } {
  const attached: AttachedMemoryStore[] = [];
  for (const [index, entry] of input.entries()) {
    const store = stores.get(entry.storeId)!;
    const mount = memoryStoreSlug(store.name);
    const clash = attached.find((other) => other.mount === mount);
    if (clash) return { problem: `the stores "${clash.name}" and "${store.name}" would both be mounted as ${mount}: rename one`, index };
    attached.push({
      storeId: entry.storeId,
      name: store.name,
      description: store.description,
      mount,
      mountPath: memoryMountPath(mount),
      access: entry.access,
      instructions: entry.instructions ?? null,
    });
  }
  return { attached };
}
