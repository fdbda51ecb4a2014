import { and, eq, isNull } from 'drizzle-orm';
import { modelPresets, modelProviders } from '../../../db/schema/index.ts';
import { ConflictError } from '../../../domain/errors.ts';
import { recordAudit } from '../../kernel/audit/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { assertOrganizationAdministrator } from '../../access/projects/index.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { loadLiveProvider } from './load.ts';

/**
 * Removes a provider connection (spec 1 "Model presets and providers"): refused with 409 while
 * a live (non-archived) preset of any project of the organization routes through it;
 * otherwise the sealed key and fingerprint are wiped, the row is marked removed and its key is
 * free for a new connection. Archived presets keep pointing at the removed row (their runs
 * fail with a provider-removed error). Deployment presets name connections by key and do not
 * block removal; they become unavailable until a connection with that key exists again.
 */
export async function removeModelProvider({ ctx, input }: { ctx: ServiceContext; input: { providerId: string } }): Promise<{ id: string; removed: true }> {
  const actor = requireActor(ctx);
  assertOrganizationAdministrator(actor);
  return withTransaction(ctx, async (tx) => {
    // The row lock orders this against preset creation, which takes a share lock on it.
    const provider = await loadLiveProvider(tx, { organizationId: actor.organizationId, providerId: input.providerId, lock: 'update' });
    const live = await tx.db
      .select({ key: modelPresets.key, projectId: modelPresets.projectId })
      .from(modelPresets)
      .where(and(eq(modelPresets.organizationId, actor.organizationId), eq(modelPresets.providerId, provider.id), isNull(modelPresets.archivedAt)))
      .limit(10);
    if (live.length > 0) {
      throw new ConflictError(`Model provider ${provider.key} is still used by a live preset; archive its presets first`, {
        presets: live.map((preset) => ({ key: preset.key, projectId: preset.projectId })),
      });
    }
    const now = tx.clock.now();
    await tx.db
      .update(modelProviders)
      .set({ credentialCiphertext: null, credentialFingerprint: null, removedAt: now, updatedAt: now })
      .where(eq(modelProviders.id, provider.id));
    await recordAudit(tx, {
      action: 'model_provider.removed',
      targetType: 'model_provider',
      targetId: provider.id,
      details: { key: provider.key, providerType: provider.providerType },
    });
    return { id: provider.id, removed: true as const };
  });
}
