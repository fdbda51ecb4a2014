import type * as v from 'valibot';
import type { PublicSandboxProviderShape } from '../../../domain/public-shapes/connections.ts';
import type { sandboxProviders } from '../../../db/schema/index.ts';

export type SandboxProviderRow = typeof sandboxProviders.$inferSelect;

/** The AAD binding a sealed sandbox API key to its connection (services/kernel/credentials/keyring.ts). */
export const sandboxCredentialAad = (providerId: string) => `sandbox_provider:${providerId}`;

/** Safe connection metadata (spec 1): the API key is write-only; only its fingerprint shows. */
export type PublicSandboxProvider = v.InferOutput<typeof PublicSandboxProviderShape>;

export const toSandboxProviderResponse = (row: SandboxProviderRow): PublicSandboxProvider => ({
  id: row.id,
  organizationId: row.organizationId,
  key: row.key,
  displayName: row.displayName,
  providerType: row.providerType,
  target: row.target,
  restrictedEgress: row.restrictedEgress,
  credentialConfigured: row.credentialCiphertext !== null,
  credentialFingerprint: row.credentialFingerprint,
  credentialVersion: row.credentialVersion,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});
