import type * as v from 'valibot';
import type { PublicApiKeyShape } from '../../../domain/public-shapes/access.ts';
import type { apiKeys } from '../../../db/schema/index.ts';

type ApiKeyRow = typeof apiKeys.$inferSelect;

/** API key metadata; the secret itself is never stored or shown after creation. */
export type PublicApiKey = v.InferOutput<typeof PublicApiKeyShape>;

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
