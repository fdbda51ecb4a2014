import type { CredentialKeyring } from '../../kernel/credentials/index.ts';
import { mcpCredentialAad, type McpCredentialRow } from './public.ts';

/**
 * The header an active credential is sent in, with its decrypted secret, for one outbound
 * request only: never log, store or return it. null for a revoked credential.
 */
export function credentialHeaderOf(keyring: CredentialKeyring, row: McpCredentialRow): { name: string; value: string } | null {
  if (row.revokedAt || !row.credentialCiphertext) return null;
  const secret = keyring.decrypt(row.credentialCiphertext, mcpCredentialAad(row.id));
  return row.kind === 'static_bearer' ? { name: 'authorization', value: `Bearer ${secret}` } : { name: row.headerName!, value: secret };
}
