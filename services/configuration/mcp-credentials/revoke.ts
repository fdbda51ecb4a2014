import { eq } from 'drizzle-orm';
import { mcpCredentials } from '../../../db/schema/index.ts';
import { recordAudit } from '../../kernel/audit/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { findMcpCredential } from './load.ts';
import { toMcpCredentialResponse, type PublicMcpCredential } from './public.ts';

/**
 * Revokes a credential for good: the sealed secret is wiped, so nothing can send it again, and
 * every policy naming it stops being active. Revoking a revoked credential answers it unchanged.
 */
export async function revokeMcpCredential({ ctx, input }: { ctx: ServiceContext; input: { credentialId: string } }): Promise<PublicMcpCredential> {
  return withTransaction(ctx, async (tx) => {
    const current = await findMcpCredential(tx, input.credentialId, { forUpdate: true });
    if (current.revokedAt) return toMcpCredentialResponse(current);
    const now = tx.clock.now();
    const [row] = await tx.db
      .update(mcpCredentials)
      .set({ credentialCiphertext: null, revokedAt: now, updatedAt: now })
      .where(eq(mcpCredentials.id, current.id))
      .returning();
    await recordAudit(tx, {
      action: 'mcp_credential.revoked',
      targetType: 'mcp_credential',
      targetId: current.id,
      details: { key: current.key, credentialVersion: current.credentialVersion },
    });
    return toMcpCredentialResponse(row!);
  });
}
