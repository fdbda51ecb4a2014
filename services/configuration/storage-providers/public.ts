import type * as v from 'valibot';
import type { PublicStorageProviderShape } from '../../../domain/public-shapes/connections.ts';
import type { storageProviders } from '../../../db/schema/index.ts';

export type StorageProviderRow = typeof storageProviders.$inferSelect;

/** The AAD binding a sealed storage credential to its connection (services/kernel/credentials/keyring.ts). */
export const storageCredentialAad = (providerId: string) => `storage_provider:${providerId}`;

/** Safe connection metadata (spec 1): the access keys are write-only; only a fingerprint shows. */
export type PublicStorageProvider = v.InferOutput<typeof PublicStorageProviderShape>;

export const toStorageProviderResponse = (row: StorageProviderRow): PublicStorageProvider => ({
  id: row.id,
  organizationId: row.organizationId,
  key: row.key,
  displayName: row.displayName,
  providerType: row.providerType,
  endpoint: row.endpoint,
  region: row.region,
  bucket: row.bucket,
  prefix: row.prefix,
  forcePathStyle: row.forcePathStyle,
  isDefault: row.isDefault,
  credentialConfigured: row.credentialCiphertext !== null,
  credentialFingerprint: row.credentialFingerprint,
  credentialVersion: row.credentialVersion,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});
