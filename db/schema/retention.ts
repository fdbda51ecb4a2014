import { index, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { storageProviders } from './connections.ts';
import { createdAt, id, organizationId, projectId } from './columns.ts';

/**
 * Objects retention still has to delete from storage (docs/decisions/retention-objects.md). The purge
 * that deletes a session's rows records here, in the same transaction, the objects those rows
 * named: a `prefix` (a workspace's `workspace-backups/<sessionId>/` folder, every object under
 * it) or a `run_file` (a content-addressed attachment, deleted only when no remaining attachment
 * or live upload of the project names it). The bytes are deleted after commit, outside any
 * transaction, and the row last; a worker that dies in between leaves the row for the next tick.
 * Drained oldest first across projects, hence the index on `created_at` alone.
 */
export const retentionObjectDeletions = pgTable(
  'retention_object_deletions',
  {
    id: id(),
    organizationId: organizationId(),
    projectId: projectId(),
    storageProviderId: uuid('storage_provider_id')
      .notNull()
      .references(() => storageProviders.id, { onDelete: 'cascade' }),
    kind: text('kind').$type<'prefix' | 'run_file'>().notNull(),
    /** The whole key (or folder, ending in `/`) in the bucket, as the rows stored it. */
    objectKey: text('object_key').notNull(),
    createdAt: createdAt(),
  },
  (table) => [index('retention_object_deletions_created_idx').on(table.createdAt)],
);
