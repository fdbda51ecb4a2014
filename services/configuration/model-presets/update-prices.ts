import { and, eq } from 'drizzle-orm';
import * as v from 'valibot';
import { modelPresets, modelProviders } from '../../../db/schema/index.ts';
import { ConflictError, NotFoundError } from '../../../domain/errors.ts';
import { assertHasScopes } from '../../../domain/scopes.ts';
import { operatorPrices, PricesInput } from '../../../domain/usage/prices.ts';
import { recordAudit } from '../../kernel/audit/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import type { DeploymentPreset } from './deployment.ts';
import { toProjectPresetResponse, type PublicModelPreset } from './public.ts';

/**
 * Sets a project preset's prices (`PATCH /model-presets/{id}`), the one field a preset may change
 * after creation: prices say what calls cost, not how the model behaves, so versions that pinned
 * the preset are unaffected. Calls that complete afterwards cost at the new prices; recorded
 * costs stay. Archived presets still run for the versions that pinned them, so they may be
 * priced too. Deployment presets take their prices from the server's file (409). Audited.
 */
export async function updateModelPresetPrices({
  ctx,
  deploymentPresets,
  input,
}: {
  ctx: ServiceContext;
  deploymentPresets: readonly DeploymentPreset[];
  input: { presetId: string; prices: PricesInput | null };
}): Promise<PublicModelPreset> {
  const actor = requireActor(ctx);
  assertHasScopes(actor.scopes, ['project:admin']);
  const deployment = deploymentPresets.find((preset) => preset.id === input.presetId);
  if (deployment) throw new ConflictError(`Preset ${deployment.key} is a deployment preset; its prices are set in the server's presets file`);
  const prices = input.prices === null ? null : operatorPrices(v.parse(PricesInput, input.prices));
  return withTransaction(ctx, async (tx) => {
    const [before] = await tx.db
      .select({ prices: modelPresets.prices })
      .from(modelPresets)
      .where(and(eq(modelPresets.id, input.presetId), eq(modelPresets.projectId, actor.projectId)))
      .for('no key update');
    if (!before) throw new NotFoundError('No model preset with that id in this project');
    const [row] = await tx.db.update(modelPresets).set({ prices }).where(eq(modelPresets.id, input.presetId)).returning();
    const [provider] = await tx.db.select().from(modelProviders).where(eq(modelProviders.id, row!.providerId));
    await recordAudit(tx, {
      action: 'model_preset.prices_changed',
      targetType: 'model_preset',
      targetId: row!.id,
      details: { key: row!.key, before: before.prices, after: prices },
    });
    return toProjectPresetResponse(row!, provider!);
  });
}
