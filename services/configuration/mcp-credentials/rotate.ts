import * as v from 'valibot';
import { eq } from 'drizzle-orm';
import { mcpCredentials } from '../../../db/schema/index.ts';
import { ConflictError } from '../../../domain/errors.ts';
import { RotateMcpCredentialInput } from '../../../domain/mcp/inputs.ts';
import { recordAudit } from '../../kernel/audit/index.ts';
import { sealCredential, type CredentialKeyring } from '../../kernel/credentials/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { findMcpCredential } from './load.ts';
import { mcpCredentialAad, toMcpCredentialResponse, type PublicMcpCredential } from './public.ts';

/**
 * Replaces the secret of an active credential: the next credential version, which every policy
 * naming the credential uses from the commit on. A revoked credential stays revoked (409).
 */
export async function rotateMcpCredential({
  ctx,
  keyring,
  input,
}: {
  ctx: ServiceContext;
  keyring: CredentialKeyring;
  input: { credentialId: string } & RotateMcpCredentialInput;
}): Promise<PublicMcpCredential> {
  const { secret } = v.parse(RotateMcpCredentialInput, { secret: input.secret });
  return withTransaction(ctx, async (tx) => {
    const current = await findMcpCredential(tx, input.credentialId, { forUpdate: true });
    if (current.revokedAt) throw new ConflictError('The MCP credential is revoked; revoked credentials stay revoked', { credentialId: current.id });
    const sealed = sealCredential(keyring, { plaintext: secret, associatedData: mcpCredentialAad(current.id), previousVersion: current.credentialVersion });
    const [row] = await tx.db
      .update(mcpCredentials)
      .set({ ...sealed, updatedAt: tx.clock.now() })
      .where(eq(mcpCredentials.id, current.id))
      .returning();
    await recordAudit(tx, {
      action: 'mcp_credential.rotated',
      targetType: 'mcp_credential',
      targetId: current.id,
      details: { key: current.key, credentialFingerprint: sealed.credentialFingerprint, credentialVersion: sealed.credentialVersion },
    });
    return toMcpCredentialResponse(row!);
  });
}
