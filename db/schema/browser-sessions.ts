import { index, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, id, organizationId, timestampColumn } from './columns.ts';
import { projects } from './projects.ts';

/**
 * Cookie sessions. The cookie holds a random token; only its SHA-256 is stored. The active
 * project can move (switch-project); if it is deleted the session falls back to its home project.
 */
export const browserSessions = pgTable(
  'browser_sessions',
  {
    id: id(),
    organizationId: organizationId(),
    subject: text('subject').notNull(),
    tokenHash: text('token_hash').notNull(),
    homeProjectId: uuid('home_project_id').references(() => projects.id, { onDelete: 'set null' }),
    activeProjectId: uuid('active_project_id').references(() => projects.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    expiresAt: timestampColumn('expires_at').notNull(),
    // Hosted mode: the refresh cookie's hash and lifetime, and the provider's tokens sealed
    // with the keyring (refresh token for POST /auth/refresh, ID token for RP-initiated logout).
    refreshTokenHash: text('refresh_token_hash'),
    refreshExpiresAt: timestampColumn('refresh_expires_at'),
    providerTokensCiphertext: text('provider_tokens_ciphertext'),
  },
  (table) => [
    uniqueIndex('browser_sessions_token_hash_key').on(table.tokenHash),
    uniqueIndex('browser_sessions_refresh_token_hash_key').on(table.refreshTokenHash),
    index('browser_sessions_organization_idx').on(table.organizationId),
  ],
);
