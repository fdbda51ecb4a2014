import { index, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, id, organizationId, timestampColumn } from './columns.ts';
import { principals } from './principals.ts';

/**
 * Organization-scoped API keys. Only a keyed hash (HMAC-SHA-256 under a key derived from the
 * server key) of the secret is stored; `secretHint` keeps the last four characters for people.
 */
export const apiKeys = pgTable(
  'api_keys',
  {
    id: id(),
    organizationId: organizationId(),
    name: text('name').notNull(),
    scopes: jsonb('scopes').$type<string[]>().notNull(),
    secretHash: text('secret_hash').notNull(),
    secretHint: text('secret_hint').notNull(),
    // The creator's principal; set null if that project is deleted, the key lives on.
    createdByPrincipalId: uuid('created_by_principal_id').references(() => principals.id, { onDelete: 'set null' }),
    createdBySubject: text('created_by_subject').notNull(),
    createdAt: createdAt(),
    lastUsedAt: timestampColumn('last_used_at'),
    revokedAt: timestampColumn('revoked_at'),
  },
  (table) => [
    uniqueIndex('api_keys_secret_hash_key').on(table.secretHash),
    index('api_keys_organization_created_idx').on(table.organizationId, table.createdAt),
  ],
);
