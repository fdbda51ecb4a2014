import type * as v from 'valibot';
import type { PublicMcpCredentialShape } from '../../../domain/public-shapes/mcp.ts';
import type { mcpCredentials } from '../../../db/schema/index.ts';

export type McpCredentialRow = typeof mcpCredentials.$inferSelect;

/** Redacted credential metadata (spec 1): the secret is write-only; its fingerprint shows. */
export type PublicMcpCredential = v.InferOutput<typeof PublicMcpCredentialShape>;

export const toMcpCredentialResponse = (row: McpCredentialRow): PublicMcpCredential => ({
  id: row.id,
  organizationId: row.organizationId,
  key: row.key,
  displayName: row.displayName,
  kind: row.kind,
  headerName: row.headerName,
  lifecycle: row.revokedAt ? 'revoked' : 'active',
  credentialConfigured: row.credentialCiphertext !== null,
  credentialFingerprint: row.credentialFingerprint,
  credentialVersion: row.credentialVersion,
  revokedAt: row.revokedAt?.toISOString() ?? null,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

/** The AAD binding a sealed MCP secret to its row (services/kernel/credentials/keyring.ts). */
export const mcpCredentialAad = (credentialId: string) => `mcp_credential:${credentialId}`;
