import { randomUUID } from 'node:crypto';
import * as v from 'valibot';
import { sandboxProviders } from '../../../db/schema/index.ts';
import { ConflictError, ValidationError } from '../../../domain/errors.ts';
import { CreateSandboxProviderInput, restrictedEgressProblem } from '../../../domain/sandbox/provider-input.ts';
import { recordAudit } from '../../kernel/audit/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { sealCredential, type CredentialKeyring } from '../../kernel/credentials/index.ts';
import { assertOrganizationAdministrator } from '../../access/projects/index.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { isUniqueViolation } from '../../kernel/unique-violation.ts';
import { sandboxCredentialAad, toSandboxProviderResponse, type PublicSandboxProvider } from './public.ts';

/** SVC_OUTBOUND_ALLOW_PRIVATE_NETWORK: the address policy egress allowlists are held to. */
export type SandboxEgressPolicy = { allowPrivateNetwork: boolean };

/**
 * Connects a sandbox provider for the whole organization. The API key is sealed under the server
 * key bound to the new row's id; `target` and the egress allowlist are mutable configuration.
 */
export async function createSandboxProvider({
  ctx,
  keyring,
  policy,
  input,
}: {
  ctx: ServiceContext;
  keyring: CredentialKeyring;
  policy: SandboxEgressPolicy;
  input: v.InferInput<typeof CreateSandboxProviderInput>;
}): Promise<PublicSandboxProvider> {
  const actor = requireActor(ctx);
  assertOrganizationAdministrator(actor);
  const parsed = v.parse(CreateSandboxProviderInput, input);
  assertEgressWithinPolicy(parsed.restrictedEgress, policy);
  const id = randomUUID();
  const sealed = sealCredential(keyring, { plaintext: parsed.apiKey, associatedData: sandboxCredentialAad(id) });
  return withTransaction(ctx, async (tx) => {
    let row;
    try {
      const now = tx.clock.now();
      [row] = await tx.db
        .insert(sandboxProviders)
        .values({
          id,
          organizationId: actor.organizationId,
          key: parsed.key,
          displayName: parsed.displayName,
          providerType: parsed.providerType,
          target: parsed.target,
          restrictedEgress: parsed.restrictedEgress,
          ...sealed,
          createdAt: now,
          updatedAt: now,
        })
        .returning();
    } catch (error) {
      if (isUniqueViolation(error)) throw new ConflictError(`A sandbox provider with key "${parsed.key}" already exists in this organization`);
      throw error;
    }
    await recordAudit(tx, { action: 'sandbox_provider.created', targetType: 'sandbox_provider', targetId: id, details: { key: parsed.key } });
    return toSandboxProviderResponse(row!);
  });
}

/** 400 naming the first `allowedCidrs` entry the address policy leaves nothing of. */
export function assertEgressWithinPolicy(egress: { allowedCidrs: readonly string[] }, policy: SandboxEgressPolicy): void {
  const problem = restrictedEgressProblem(egress, policy);
  if (problem) throw new ValidationError(problem.message, { path: problem.path });
}
