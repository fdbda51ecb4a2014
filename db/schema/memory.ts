import { bigint, index, integer, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, id, organizationId, projectId, timestampColumn, updatedAt } from './columns.ts';

/** Who wrote a memory version: a principal through the API, or an agent in a session's run. */
export type MemoryAuthor = { type: 'principal'; principalId: string; apiKeyId: string | null } | { type: 'session'; sessionId: string; runId: string };

/**
 * Memory stores (docs/decisions/memory-stores.md): named, project-scoped containers of memories
 * that outlive sessions. Archived stores are read-only. The counters are kept by every write in
 * the transaction that holds the store's row, so `GET` and the metrics read them without a scan.
 */
export const memoryStores = pgTable(
  'memory_stores',
  {
    id: id(),
    organizationId: organizationId(),
    projectId: projectId(),
    name: text('name').notNull(),
    description: text('description').notNull().default(''),
    metadata: jsonb('metadata').$type<Record<string, string>>().notNull().default({}),
    memoryCount: integer('memory_count').notNull().default(0),
    sizeBytes: bigint('size_bytes', { mode: 'number' }).notNull().default(0),
    versionCount: integer('version_count').notNull().default(0),
    archivedAt: timestampColumn('archived_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [index('memory_stores_project_idx').on(table.projectId, table.createdAt)],
);

/**
 * A memory: a text document at a path of its store. Its id stays when its path changes; its
 * current content is also its newest version's. Paths are unique per store and never overlap
 * (no memory at an ancestor of another's path). The column's collation is "C" (set in its
 * migration: drizzle has no word for it), so paths order and range byte-wise, index and all.
 */
export const memories = pgTable(
  'memories',
  {
    id: id(),
    organizationId: organizationId(),
    projectId: projectId(),
    storeId: uuid('store_id')
      .notNull()
      .references(() => memoryStores.id, { onDelete: 'cascade' }),
    path: text('path').notNull(),
    content: text('content').notNull(),
    contentSha256: text('content_sha256').notNull(),
    contentSizeBytes: integer('content_size_bytes').notNull(),
    versionId: uuid('version_id').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [uniqueIndex('memories_store_path').on(table.storeId, table.path)],
);

/**
 * Memory versions: one immutable row per change of a memory (created, modified, deleted), kept
 * after the memory is deleted. Redaction removes a version's content and path for good and keeps
 * its existence, operation, author, size and hash.
 */
export const memoryVersions = pgTable(
  'memory_versions',
  {
    id: id(),
    organizationId: organizationId(),
    projectId: projectId(),
    storeId: uuid('store_id')
      .notNull()
      .references(() => memoryStores.id, { onDelete: 'cascade' }),
    memoryId: uuid('memory_id').notNull(),
    operation: text('operation').$type<'created' | 'modified' | 'deleted'>().notNull(),
    path: text('path'),
    content: text('content'),
    contentSha256: text('content_sha256'),
    contentSizeBytes: integer('content_size_bytes'),
    author: jsonb('author').$type<MemoryAuthor>().notNull(),
    sessionId: uuid('session_id'),
    runId: uuid('run_id'),
    /** What made the change when it may be retried (`tool:<toolCallId>`): a retried write finds its version instead of writing twice. */
    sourceKey: text('source_key'),
    redactedAt: timestampColumn('redacted_at'),
    redactedBy: jsonb('redacted_by').$type<MemoryAuthor>(),
    createdAt: createdAt(),
  },
  (table) => [
    index('memory_versions_store_idx').on(table.storeId, table.createdAt),
    index('memory_versions_memory_idx').on(table.memoryId, table.createdAt),
    uniqueIndex('memory_versions_source_key').on(table.storeId, table.sourceKey),
    // A session's writes (its detail lists them).
    index('memory_versions_session_idx').on(table.sessionId),
  ],
);
