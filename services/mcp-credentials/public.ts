import type { mcpCredentials } from '../../db/schema/index.ts';
import type { McpCredentialKind } from '../../domain/mcp/types.ts';

export type McpCredentialRow = typeof mcpCredentials.$inferSelect;

/** Redacted credential metadata (spec 1): the secret is write-only; its fingerprint shows. */
export type PublicMcpCredential = {
  id: string;
  organizationId: string;
  key: string;
  displayName: string;
  kind: McpCredentialKind;
  headerName: string | null;
  /** `active` until revoked; revoked stays revoked. */
  lifecycle: 'active' | 'revoked';
  credentialConfigured: boolean;
  credentialFingerprint: string | null;
  /** 1 when created, +1 per rotation. */
  credentialVersion: number;
  revokedAt: string | null;
  createdAt: string;
  updatedAt: string;
};

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

/** The AAD binding a sealed MCP secret to its row (services/credentials/keyring.ts). */
export const mcpCredentialAad = (credentialId: string) => `mcp_credential:${credentialId}`;
