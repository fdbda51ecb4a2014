import { sql } from 'drizzle-orm';
import { boolean, index, jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, credentialColumns, id, organizationId, updatedAt } from './columns.ts';

/** Egress a sandbox under `network: restricted` may reach (spec 1 "Sandbox, storage, MCP"). */
export type RestrictedEgress = { allowedDomains: string[]; allowedCidrs: string[] };

/**
 * Sandbox provider connections (`sandbox_vendor`), shared by every project of an organization.
 * The API key is sealed (AAD `sandbox_provider:<id>`). `target` and `restricted_egress` are
 * mutable configuration, read at run time and never copied into agent versions.
 */
export const sandboxProviders = pgTable(
  'sandbox_providers',
  {
    id: id(),
    organizationId: organizationId(),
    key: text('key').notNull(),
    displayName: text('display_name').notNull(),
    providerType: text('provider_type').$type<'sandbox_vendor'>().notNull(),
    target: text('target'),
    restrictedEgress: jsonb('restricted_egress').$type<RestrictedEgress>().notNull(),
    ...credentialColumns(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    uniqueIndex('sandbox_providers_key').on(table.organizationId, table.key),
    index('sandbox_providers_organization_idx').on(table.organizationId, table.createdAt),
  ],
);

/**
 * Object-storage connections (`s3`), shared by every project of an organization. The access key
 * pair (and optional session token) is sealed as one JSON credential (AAD `storage_provider:<id>`).
 * Configuration is immutable; one connection per organization is the default.
 */
export const storageProviders = pgTable(
  'storage_providers',
  {
    id: id(),
    organizationId: organizationId(),
    key: text('key').notNull(),
    displayName: text('display_name').notNull(),
    providerType: text('provider_type').$type<'s3'>().notNull(),
    endpoint: text('endpoint'),
    region: text('region').notNull(),
    bucket: text('bucket').notNull(),
    prefix: text('prefix'),
    forcePathStyle: boolean('force_path_style').notNull(),
    isDefault: boolean('is_default').notNull(),
    ...credentialColumns(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    uniqueIndex('storage_providers_key').on(table.organizationId, table.key),
    uniqueIndex('storage_providers_default')
      .on(table.organizationId)
      .where(sql`${table.isDefault}`),
    index('storage_providers_organization_idx').on(table.organizationId, table.createdAt),
  ],
);
