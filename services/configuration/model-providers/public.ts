import type * as v from 'valibot';
import type { PublicModelProviderShape } from '../../../domain/public-shapes/connections.ts';
import type { modelProviders } from '../../../db/schema/index.ts';

export type ModelProviderRow = typeof modelProviders.$inferSelect;

/** Safe provider metadata (spec 1): the API key is write-only; only its fingerprint shows. */
export type PublicModelProvider = v.InferOutput<typeof PublicModelProviderShape>;

export const toModelProviderResponse = (row: ModelProviderRow): PublicModelProvider => ({
  id: row.id,
  organizationId: row.organizationId,
  key: row.key,
  displayName: row.displayName,
  providerType: row.providerType,
  credentialConfigured: row.credentialCiphertext !== null,
  credentialFingerprint: row.credentialFingerprint,
  credentialVersion: row.credentialVersion,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

/** The AAD binding a sealed provider key to its row (services/kernel/credentials/keyring.ts). */
export const providerCredentialAad = (providerId: string) => `model_provider:${providerId}`;
