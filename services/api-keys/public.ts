import type { apiKeys } from '../../db/schema/index.ts';

type ApiKeyRow = typeof apiKeys.$inferSelect;

/** API key metadata; the secret itself is never stored or shown after creation. */
export type PublicApiKey = {
  id: string;
  organizationId: string;
  name: string;
  scopes: string[];
  secretHint: string;
  createdByPrincipalId: string | null;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
};

export const toApiKeyResponse = (row: ApiKeyRow): PublicApiKey => ({
  id: row.id,
  organizationId: row.organizationId,
  name: row.name,
  scopes: row.scopes,
  secretHint: row.secretHint,
  createdByPrincipalId: row.createdByPrincipalId,
  createdAt: row.createdAt.toISOString(),
  lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
  revokedAt: row.revokedAt?.toISOString() ?? null,
});
