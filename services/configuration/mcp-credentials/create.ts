import { randomUUID } from 'node:crypto';
import * as v from 'valibot';
import { mcpCredentials } from '../../../db/schema/index.ts';
import { ConflictError } from '../../../domain/errors.ts';
import { CreateMcpCredentialInput } from '../../../domain/mcp/inputs.ts';
import { recordAudit } from '../../kernel/audit/index.ts';
import { sealCredential, type CredentialKeyring } from '../../kernel/credentials/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { isUniqueViolation } from '../../kernel/unique-violation.ts';
import { mcpCredentialAad, toMcpCredentialResponse, type PublicMcpCredential } from './public.ts';

/**
 * Stores an MCP credential for the organization. The secret is sealed under the server key
 * bound to the new row's id (500 `internal_error` when credential encryption is not
 * configured, as spec 3 says); only its fingerprint and version are ever shown. A second
 * credential with the same key is a 409.
 */
export async function createMcpCredential({
  ctx,
  keyring,
  input,
}: {
  ctx: ServiceContext;
  keyring: CredentialKeyring;
  input: CreateMcpCredentialInput;
}): Promise<PublicMcpCredential> {
  const actor = requireActor(ctx);
  const { secret, ...fields } = v.parse(CreateMcpCredentialInput, input);
  const id = randomUUID();
  const sealed = sealCredential(keyring, { plaintext: secret, associatedData: mcpCredentialAad(id) });
  return withTransaction(ctx, async (tx) => {
    const now = tx.clock.now();
    let row;
    try {
      [row] = await tx.db
        .insert(mcpCredentials)
        .values({ id, organizationId: actor.organizationId, ...fields, ...sealed, createdAt: now, updatedAt: now })
        .returning();
    } catch (error) {
      if (isUniqueViolation(error)) throw new ConflictError(`An MCP credential with key "${fields.key}" already exists in this organization`);
      throw error;
    }
    await recordAudit(tx, {
      action: 'mcp_credential.created',
      targetType: 'mcp_credential',
      targetId: id,
      details: {
        key: fields.key,
        kind: fields.kind,
        headerName: fields.headerName,
        credentialFingerprint: sealed.credentialFingerprint,
        credentialVersion: sealed.credentialVersion,
      },
    });
    return toMcpCredentialResponse(row!);
  });
}
