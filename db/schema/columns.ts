import { bigint, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { organizations } from './organizations.ts';
import { projects } from './projects.ts';

/** Shared column helpers. Timestamps keep millisecond precision, as the API shows them. */
export const createdAt = () => timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow();
export const updatedAt = () => timestamp('updated_at', { withTimezone: true, precision: 3 }).notNull().defaultNow();
export const timestampColumn = (name: string) => timestamp(name, { withTimezone: true, precision: 3 });
export const id = () => uuid('id').primaryKey().defaultRandom();

export const organizationId = () =>
  uuid('organization_id')
    .notNull()
    .references(() => organizations.id, { onDelete: 'cascade' });

/** Every project-owned row cascades with its project (spec 2 rule "DELETE /projects"). */
export const projectId = () =>
  uuid('project_id')
    .notNull()
    .references(() => projects.id, { onDelete: 'cascade' });

/** Encrypted credential columns reused by every credential-bearing connection. */
export const credentialColumns = () => ({
  credentialCiphertext: text('credential_ciphertext'),
  credentialFingerprint: text('credential_fingerprint'),
  credentialVersion: bigint('credential_version', { mode: 'number' }).notNull().default(0),
});
