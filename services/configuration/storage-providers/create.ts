import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import * as v from 'valibot';
import { organizations, storageProviders } from '../../../db/schema/index.ts';
import { ConflictError, ValidationError } from '../../../domain/errors.ts';
import { CreateStorageProviderInput } from '../../../domain/storage/provider-input.ts';
import { endpointUrlProblem } from '../../../domain/outbound/endpoint-url.ts';
import { recordAudit } from '../../kernel/audit/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import type { CredentialKeyring } from '../../kernel/credentials/index.ts';
import { assertOrganizationAdministrator } from '../../access/projects/index.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { isUniqueViolation } from '../../kernel/unique-violation.ts';
import { sealStorageCredential } from './credential.ts';
import { findDefaultStorageProvider } from './load.ts';
import { toStorageProviderResponse, type PublicStorageProvider } from './public.ts';
import type { StorageEndpointPolicy } from './s3-client.ts';

/**
 * Connects an S3-compatible store for the whole organization. The organization's first
 * connection becomes its default even without `setDefault`; `setDefault: true` moves the default
 * here. Configuration never changes afterwards (only credentials and the default do). The
 * endpoint follows the webhooks' address rules: https and no literal non-public address or
 * `localhost` name, unless the server allows private networks (its host name is checked again,
 * resolved, at every use).
 */
export async function createStorageProvider({
  ctx,
  keyring,
  policy,
  input,
}: {
  ctx: ServiceContext;
  keyring: CredentialKeyring;
  policy: StorageEndpointPolicy;
  input: v.InferInput<typeof CreateStorageProviderInput>;
}): Promise<PublicStorageProvider> {
  const actor = requireActor(ctx);
  assertOrganizationAdministrator(actor);
  const parsed = v.parse(CreateStorageProviderInput, input);
  const endpointProblem =
    parsed.endpoint === null ? null : endpointUrlProblem(parsed.endpoint, { allowPrivateNetwork: policy.allowPrivateNetwork, field: 'endpoint' });
  if (endpointProblem) throw new ValidationError(endpointProblem, { path: 'body.endpoint' });
  const id = randomUUID();
  const sealed = sealStorageCredential(keyring, { providerId: id, credential: parsed });
  return withTransaction(ctx, async (tx) => {
    // The organization row lock serializes default changes, so exactly one default exists.
    await tx.db.select({ id: organizations.id }).from(organizations).where(eq(organizations.id, actor.organizationId)).for('update');
    const currentDefault = await findDefaultStorageProvider(tx, actor.organizationId);
    const isDefault = parsed.setDefault || currentDefault === null;
    const now = tx.clock.now();
    if (isDefault && currentDefault) {
      await tx.db
        .update(storageProviders)
        .set({ isDefault: false, updatedAt: now })
        .where(and(eq(storageProviders.id, currentDefault.id), eq(storageProviders.organizationId, actor.organizationId)));
    }
    let row;
    try {
      [row] = await tx.db
        .insert(storageProviders)
        .values({
          id,
          organizationId: actor.organizationId,
          key: parsed.key,
          displayName: parsed.displayName,
          providerType: parsed.providerType,
          endpoint: parsed.endpoint,
          region: parsed.region,
          bucket: parsed.bucket,
          prefix: parsed.prefix,
          forcePathStyle: parsed.forcePathStyle,
          isDefault,
          ...sealed,
          createdAt: now,
          updatedAt: now,
        })
        .returning();
    } catch (error) {
      if (isUniqueViolation(error)) throw new ConflictError(`A storage provider with key "${parsed.key}" already exists in this organization`);
      throw error;
    }
    await recordAudit(tx, { action: 'storage_provider.created', targetType: 'storage_provider', targetId: id, details: { key: parsed.key, isDefault } });
    return toStorageProviderResponse(row!);
  });
}
