import type * as v from 'valibot';
import type { PublicMemoryShape, PublicMemoryStoreShape, PublicMemoryVersionShape } from '../../../domain/public-shapes/memory.ts';
import type { memories, memoryStores, memoryVersions } from '../../../db/schema/index.ts';
import { memoryMountPath, memoryStoreSlug } from '../../../domain/memory/index.ts';

export type MemoryStoreRow = typeof memoryStores.$inferSelect;
export type MemoryRow = typeof memories.$inferSelect;
export type MemoryVersionRow = typeof memoryVersions.$inferSelect;
export type MemoryView = 'basic' | 'full';

/** The store as the API answers it (domain/public-shapes/memory.ts). */
export type PublicMemoryStore = v.InferOutput<typeof PublicMemoryStoreShape>;

export function toMemoryStoreResponse(row: MemoryStoreRow): PublicMemoryStore {
  return {
    organizationId: row.organizationId,
    projectId: row.projectId,
    id: row.id,
    name: row.name,
    description: row.description,
    metadata: row.metadata,
    mountPath: memoryMountPath(memoryStoreSlug(row.name)),
    memoryCount: row.memoryCount,
    sizeBytes: row.sizeBytes,
    versionCount: row.versionCount,
    archivedAt: row.archivedAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export type PublicMemory = v.InferOutput<typeof PublicMemoryShape>;

export function toMemoryResponse(row: MemoryRow, view: MemoryView): PublicMemory {
  return {
    id: row.id,
    storeId: row.storeId,
    path: row.path,
    content: view === 'full' ? row.content : null,
    contentSha256: row.contentSha256,
    contentSizeBytes: row.contentSizeBytes,
    versionId: row.versionId,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export type PublicMemoryVersion = v.InferOutput<typeof PublicMemoryVersionShape>;

/** A redacted version keeps its hash and size (what it was is provable, not readable). */
export function toMemoryVersionResponse(row: MemoryVersionRow, view: MemoryView): PublicMemoryVersion {
  return {
    id: row.id,
    storeId: row.storeId,
    memoryId: row.memoryId,
    operation: row.operation,
    path: row.path,
    content: view === 'full' ? row.content : null,
    contentSha256: row.contentSha256,
    contentSizeBytes: row.contentSizeBytes,
    writtenBy: row.author,
    redactedAt: row.redactedAt?.toISOString() ?? null,
    redactedBy: row.redactedBy,
    createdAt: row.createdAt.toISOString(),
  };
}
