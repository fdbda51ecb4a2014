import type { MemoryAuthor } from '../../../db/schema/index.ts';
import type { memories, memoryStores, memoryVersions } from '../../../db/schema/index.ts';
import { memoryMountPath, memoryStoreSlug } from '../../../domain/memory/index.ts';

export type MemoryStoreRow = typeof memoryStores.$inferSelect;
export type MemoryRow = typeof memories.$inferSelect;
export type MemoryVersionRow = typeof memoryVersions.$inferSelect;
export type MemoryView = 'basic' | 'full';

export type PublicMemoryStore = {
  organizationId: string;
  projectId: string;
  id: string;
  name: string;
  description: string;
  metadata: Record<string, string>;
  mountPath: string;
  memoryCount: number;
  sizeBytes: number;
  versionCount: number;
  archivedAt: string | null;
  createdAt: string;
  updatedAt: string;
};

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

export type PublicMemory = {
  id: string;
  storeId: string;
  path: string;
  content: string | null;
  contentSha256: string;
  contentSizeBytes: number;
  versionId: string;
  createdAt: string;
  updatedAt: string;
};

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

export type PublicMemoryAuthor = MemoryAuthor;

export type PublicMemoryVersion = {
  id: string;
  storeId: string;
  memoryId: string;
  operation: 'created' | 'modified' | 'deleted';
  path: string | null;
  content: string | null;
  contentSha256: string | null;
  contentSizeBytes: number | null;
  writtenBy: PublicMemoryAuthor;
  redactedAt: string | null;
  redactedBy: PublicMemoryAuthor | null;
  createdAt: string;
};

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
