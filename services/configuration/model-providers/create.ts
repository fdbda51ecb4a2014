import { randomUUID } from 'node:crypto';
import * as v from 'valibot';
import { modelProviders } from '../../../db/schema/index.ts';
import { ConflictError } from '../../../domain/errors.ts';
import { CreateModelProviderInput } from '../../../domain/model-catalog/provider-input.ts';
import { recordAudit } from '../../kernel/audit/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { sealCredential, type CredentialKeyring } from '../../kernel/credentials/index.ts';
import { assertOrganizationAdministrator } from '../../access/projects/index.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { isUniqueViolation } from '../../kernel/unique-violation.ts';
import { providerCredentialAad, toModelProviderResponse, type PublicModelProvider } from './public.ts';

/**
 * Connects a model provider for the whole organization. The API key is sealed under the
 * server key bound to the new row's id (so the id is chosen here, before the insert); only
 * its fingerprint and version are ever shown. A live connection with the same key is a 409.
 */
export async function createModelProvider({
  ctx,
  keyring,
  input,
}: {
  ctx: ServiceContext;
  keyring: CredentialKeyring;
  input: CreateModelProviderInput;
}): Promise<PublicModelProvider> {
  const actor = requireActor(ctx);
  assertOrganizationAdministrator(actor);
  const { key, displayName, providerType, apiKey } = v.parse(CreateModelProviderInput, input);
  const id = randomUUID();
  const sealed = sealCredential(keyring, { plaintext: apiKey, associatedData: providerCredentialAad(id) });
  return withTransaction(ctx, async (tx) => {
    let row;
    try {
      const now = tx.clock.now();
      [row] = await tx.db
        .insert(modelProviders)
        .values({ id, organizationId: actor.organizationId, key, displayName, providerType, ...sealed, createdAt: now, updatedAt: now })
        .returning();
    } catch (error) {
      if (isUniqueViolation(error)) throw new ConflictError(`A model provider with key "${key}" already exists in this organization`);
      throw error;
    }
    await recordAudit(tx, { action: 'model_provider.created', targetType: 'model_provider', targetId: id, details: { key, providerType } });
    return toModelProviderResponse(row!);
  });
}
