import { eq } from 'drizzle-orm';
import * as v from 'valibot';
import { modelProviders } from '../../../db/schema/index.ts';
import { RotateModelProviderCredentialInput } from '../../../domain/model-catalog/provider-input.ts';
import { recordAudit } from '../../kernel/audit/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { sealCredential, type CredentialKeyring } from '../../kernel/credentials/index.ts';
import { assertOrganizationAdministrator } from '../../access/projects/index.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { loadLiveProvider } from './load.ts';
import { providerCredentialAad, toModelProviderResponse, type PublicModelProvider } from './public.ts';

/**
 * Replaces a live provider's API key: new ciphertext and fingerprint, credential version + 1.
 * Presets keep routing through the connection; the next model call uses the new key. A
 * removed or unknown provider is a 404.
 */
export async function rotateModelProviderCredential({
  ctx,
  keyring,
  input,
}: {
  ctx: ServiceContext;
  keyring: CredentialKeyring;
  input: { providerId: string } & RotateModelProviderCredentialInput;
}): Promise<PublicModelProvider> {
  const actor = requireActor(ctx);
  assertOrganizationAdministrator(actor);
  const { apiKey } = v.parse(RotateModelProviderCredentialInput, { apiKey: input.apiKey });
  return withTransaction(ctx, async (tx) => {
    const current = await loadLiveProvider(tx, { organizationId: actor.organizationId, providerId: input.providerId, lock: 'update' });
    const sealed = sealCredential(keyring, {
      plaintext: apiKey,
      associatedData: providerCredentialAad(current.id),
      previousVersion: current.credentialVersion,
    });
    const [row] = await tx.db
      .update(modelProviders)
      .set({ ...sealed, updatedAt: tx.clock.now() })
      .where(eq(modelProviders.id, current.id))
      .returning();
    await recordAudit(tx, {
      action: 'model_provider.credential_rotated',
      targetType: 'model_provider',
      targetId: current.id,
      details: { key: current.key, providerType: current.providerType, credentialVersion: sealed.credentialVersion },
    });
    return toModelProviderResponse(row!);
  });
}
