import { eq } from 'drizzle-orm';
import * as v from 'valibot';
import { sandboxProviders } from '../../../db/schema/index.ts';
import { RotateSandboxProviderCredentialInput, UpdateSandboxProviderConfigurationInput } from '../../../domain/sandbox/provider-input.ts';
import { recordAudit } from '../../kernel/audit/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { sealCredential, type CredentialKeyring } from '../../kernel/credentials/index.ts';
import { assertOrganizationAdministrator } from '../../access/projects/index.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { assertEgressWithinPolicy, type SandboxEgressPolicy } from './create.ts';
import { loadSandboxProvider } from './load.ts';
import { sandboxCredentialAad, toSandboxProviderResponse, type PublicSandboxProvider } from './public.ts';

/** Replaces the connection's API key: new ciphertext and fingerprint, credential version + 1. */
export async function rotateSandboxProviderCredential({
  ctx,
  keyring,
  input,
}: {
  ctx: ServiceContext;
  keyring: CredentialKeyring;
  input: { providerId: string; apiKey: string };
}): Promise<PublicSandboxProvider> {
  const actor = requireActor(ctx);
  assertOrganizationAdministrator(actor);
  const { apiKey } = v.parse(RotateSandboxProviderCredentialInput, { apiKey: input.apiKey });
  return withTransaction(ctx, async (tx) => {
    const current = await loadSandboxProvider(tx, { organizationId: actor.organizationId, providerId: input.providerId, lock: true });
    const sealed = sealCredential(keyring, { plaintext: apiKey, associatedData: sandboxCredentialAad(current.id), previousVersion: current.credentialVersion });
    const [row] = await tx.db
      .update(sandboxProviders)
      .set({ ...sealed, updatedAt: tx.clock.now() })
      .where(eq(sandboxProviders.id, current.id))
      .returning();
    await recordAudit(tx, {
      action: 'sandbox_provider.credential_rotated',
      targetType: 'sandbox_provider',
      targetId: current.id,
      details: { key: current.key, credentialVersion: sealed.credentialVersion },
    });
    return toSandboxProviderResponse(row!);
  });
}

/**
 * Replaces `target` and the egress allowlist. Agent versions never copy these, so running and
 * future sandboxes of every version that names the connection use the new values.
 */
export async function updateSandboxProviderConfiguration({
  ctx,
  policy,
  input,
}: {
  ctx: ServiceContext;
  policy: SandboxEgressPolicy;
  input: { providerId: string } & v.InferInput<typeof UpdateSandboxProviderConfigurationInput>;
}): Promise<PublicSandboxProvider> {
  const actor = requireActor(ctx);
  assertOrganizationAdministrator(actor);
  const { providerId, ...body } = input;
  const { target, restrictedEgress } = v.parse(UpdateSandboxProviderConfigurationInput, body);
  assertEgressWithinPolicy(restrictedEgress, policy);
  return withTransaction(ctx, async (tx) => {
    const current = await loadSandboxProvider(tx, { organizationId: actor.organizationId, providerId, lock: true });
    const [row] = await tx.db
      .update(sandboxProviders)
      .set({ target, restrictedEgress, updatedAt: tx.clock.now() })
      .where(eq(sandboxProviders.id, current.id))
      .returning();
    await recordAudit(tx, {
      action: 'sandbox_provider.configuration_updated',
      targetType: 'sandbox_provider',
      targetId: current.id,
      details: { key: current.key, allowedDomains: restrictedEgress.allowedDomains.length, allowedCidrs: restrictedEgress.allowedCidrs.length },
    });
    return toSandboxProviderResponse(row!);
  });
}
