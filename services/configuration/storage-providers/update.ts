import { and, eq, ne } from 'drizzle-orm';
import * as v from 'valibot';
import { organizations, storageProviders } from '../../../db/schema/index.ts';
import { StorageCredentialInput } from '../../../domain/storage/provider-input.ts';
import { recordAudit } from '../../kernel/audit/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import type { CredentialKeyring } from '../../kernel/credentials/index.ts';
import { assertOrganizationAdministrator } from '../../access/projects/index.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { sealStorageCredential } from './credential.ts';
import { loadStorageProvider } from './load.ts';
import { toStorageProviderResponse, type PublicStorageProvider } from './public.ts';

/** Replaces the access key pair (and session token): new fingerprint, credential version + 1. */
export async function rotateStorageProviderCredential({
  ctx,
  keyring,
  input,
}: {
  ctx: ServiceContext;
  keyring: CredentialKeyring;
  input: { providerId: string } & v.InferInput<typeof StorageCredentialInput>;
}): Promise<PublicStorageProvider> {
  const actor = requireActor(ctx);
  assertOrganizationAdministrator(actor);
  const { providerId, ...body } = input;
  const credential = v.parse(StorageCredentialInput, body);
  return withTransaction(ctx, async (tx) => {
    const current = await loadStorageProvider(tx, { organizationId: actor.organizationId, providerId, lock: true });
    const sealed = sealStorageCredential(keyring, { providerId: current.id, credential, previousVersion: current.credentialVersion });
    const [row] = await tx.db
      .update(storageProviders)
      .set({ ...sealed, updatedAt: tx.clock.now() })
      .where(eq(storageProviders.id, current.id))
      .returning();
    await recordAudit(tx, {
      action: 'storage_provider.credential_rotated',
      targetType: 'storage_provider',
      targetId: current.id,
      details: { key: current.key, credentialVersion: sealed.credentialVersion },
    });
    return toStorageProviderResponse(row!);
  });
}

/**
 * Makes a connection the organization's default for new attachments and new threads' backups.
 * Objects already written stay bound to the connection that wrote them. Idempotent.
 */
export async function setDefaultStorageProvider({ ctx, input }: { ctx: ServiceContext; input: { providerId: string } }): Promise<PublicStorageProvider> {
  const actor = requireActor(ctx);
  assertOrganizationAdministrator(actor);
  return withTransaction(ctx, async (tx) => {
    await tx.db.select({ id: organizations.id }).from(organizations).where(eq(organizations.id, actor.organizationId)).for('update');
    const current = await loadStorageProvider(tx, { organizationId: actor.organizationId, providerId: input.providerId, lock: true });
    if (current.isDefault) return toStorageProviderResponse(current);
    const now = tx.clock.now();
    await tx.db
      .update(storageProviders)
      .set({ isDefault: false, updatedAt: now })
      .where(and(eq(storageProviders.organizationId, actor.organizationId), eq(storageProviders.isDefault, true), ne(storageProviders.id, current.id)));
    const [row] = await tx.db.update(storageProviders).set({ isDefault: true, updatedAt: now }).where(eq(storageProviders.id, current.id)).returning();
    await recordAudit(tx, { action: 'storage_provider.default_set', targetType: 'storage_provider', targetId: current.id, details: { key: current.key } });
    return toStorageProviderResponse(row!);
  });
}
