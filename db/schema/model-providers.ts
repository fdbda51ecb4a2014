import type { ModelProviderType } from '../../domain/model-catalog/types.ts';
import type { ModelPrices } from '../../domain/usage/prices.ts';
import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, credentialColumns, id, organizationId, projectId, timestampColumn, updatedAt } from './columns.ts';

/**
 * Model provider connections, shared by every project of an organization. The API key is
 * sealed with the credential keyring (AAD `model_provider:<id>`); removal wipes it and frees the
 * key (the unique index covers live rows only).
 */
export const modelProviders = pgTable(
  'model_providers',
  {
    id: id(),
    organizationId: organizationId(),
    key: text('key').notNull(),
    displayName: text('display_name').notNull(),
    providerType: text('provider_type').$type<ModelProviderType>().notNull(),
    ...credentialColumns(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    removedAt: timestampColumn('removed_at'),
  },
  (table) => [
    uniqueIndex('model_providers_live_key')
      .on(table.organizationId, table.key)
      .where(sql`${table.removedAt} is null`),
    index('model_providers_organization_idx').on(table.organizationId, table.createdAt),
  ],
);

/**
 * Project model presets: append-only, never edited; DELETE archives. The key stays reserved
 * after archiving (the unique index covers archived rows too).
 */
export const modelPresets = pgTable(
  'model_presets',
  {
    id: id(),
    organizationId: organizationId(),
    projectId: projectId(),
    key: text('key').notNull(),
    displayName: text('display_name').notNull(),
    providerId: uuid('provider_id')
      .notNull()
      .references(() => modelProviders.id),
    model: text('model').notNull(),
    routing: jsonb('routing').$type<Record<string, unknown>>().notNull(),
    settings: jsonb('settings').$type<Record<string, unknown> | null>(),
    /**
     * Prices per million tokens in the installation's currency (null: unpriced, its calls cost 0).
     * The one field a preset may change after creation: it prices future calls, not the model's behaviour.
     */
    prices: jsonb('prices').$type<ModelPrices | null>(),
    /** The model's context window as the catalog gave it when the preset was created (null: unknown). */
    contextWindow: integer('context_window'),
    createdByPrincipalId: uuid('created_by_principal_id'),
    createdAt: createdAt(),
    archivedAt: timestampColumn('archived_at'),
  },
  (table) => [uniqueIndex('model_presets_project_key').on(table.projectId, table.key), index('model_presets_project_idx').on(table.projectId, table.createdAt)],
);
