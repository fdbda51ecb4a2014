import { sql } from 'drizzle-orm';
import { boolean, check, index, pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core';
import { createdAt, organizationId, timestampColumn } from './columns.ts';
import { projects } from './projects.ts';

/**
 * A person or machine that completed a verified sign-in, per organization. It outlives every
 * membership: removing someone keeps this row, which is also what stops a removed person from
 * rejoining on their own (spec 3 "Roles" rule 1). Members are added by its `email` in edge-proxy
 * mode.
 */
export const identities = pgTable(
  'identities',
  {
    organizationId: organizationId(),
    subject: text('subject').notNull(),
    kind: text('kind').$type<'human' | 'service'>().notNull(),
    email: text('email'),
    displayName: text('display_name'),
    createdAt: createdAt(),
    lastSignInAt: timestampColumn('last_sign_in_at').notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.organizationId, table.subject] }), index('identities_organization_email_idx').on(table.organizationId, table.email)],
);

/**
 * The installation's one row: its organization and default project, and the owner claim. The
 * claim is taken once (first verified human in edge-proxy mode, the configured subject in hosted
 * mode) and never reopens, across restarts and removed owners.
 */
export const installation = pgTable(
  'installation',
  {
    singleton: boolean('singleton').primaryKey().default(true),
    organizationId: organizationId(),
    defaultProjectId: uuid('default_project_id').references(() => projects.id, { onDelete: 'set null' }),
    ownerClaimedBySubject: text('owner_claimed_by_subject'),
    ownerClaimedAt: timestampColumn('owner_claimed_at'),
    createdAt: createdAt(),
  },
  (table) => [check('installation_singleton', sql`${table.singleton}`)],
);

/**
 * Hosted sign-in states (spec 3 "Browser sessions" rule 3): single-use, ten minutes. Only the
 * state's SHA-256 is the key; the PKCE verifier is sealed with the keyring.
 */
export const loginStates = pgTable('login_states', {
  stateHash: text('state_hash').primaryKey(),
  codeVerifierCiphertext: text('code_verifier_ciphertext').notNull(),
  nonce: text('nonce').notNull(),
  createdAt: createdAt(),
  expiresAt: timestampColumn('expires_at').notNull(),
  consumedAt: timestampColumn('consumed_at'),
});
