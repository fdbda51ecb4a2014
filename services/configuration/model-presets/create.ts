import { modelPresets } from '../../../db/schema/index.ts';
import * as v from 'valibot';
import { ConflictError } from '../../../domain/errors.ts';
import { CreateModelPresetInput } from '../../../domain/model-presets/create-input.ts';
import { checkPresetAgainstCatalog, normalizePresetConfig } from '../../../domain/model-presets/config.ts';
import { assertHasScopes } from '../../../domain/scopes.ts';
import { operatorPrices, type ModelPrices } from '../../../domain/usage/prices.ts';
import { recordAudit } from '../../kernel/audit/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import type { CredentialKeyring } from '../../kernel/credentials/index.ts';
import { fetchProviderCatalog, type ModelBaseUrls } from '../model-catalog/index.ts';
import { providerApiKey } from '../model-providers/index.ts';
import { loadLiveProvider } from '../model-providers/index.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { isUniqueViolation } from '../../kernel/unique-violation.ts';
import type { DeploymentPreset } from './deployment.ts';
import { toProjectPresetResponse, type PublicModelPreset } from './public.ts';

/**
 * Approves a model preset for the project (append-only: never edited afterwards, but for its
 * prices, `update-prices.ts`). Prices omitted are the catalog's where the provider publishes them. The provider
 * must be a live connection of the organization (404); model, routing and settings follow the
 * provider type's rules (defaults stored for omitted settings); the model must be in the
 * provider's catalog, fetched afresh, and runtime-supported, and must support the saved
 * settings (400). `gateway/@preset/<slug>` (a saved OpenRouter preset, not in the catalog) is
 * checked by pattern only. A key used by any preset of the project, archived included, or by a
 * deployment preset is a 409.
 */
export async function createModelPreset({
  ctx,
  keyring,
  baseUrls,
  deploymentPresets,
  currency,
  input,
}: {
  ctx: ServiceContext;
  keyring: CredentialKeyring;
  baseUrls: ModelBaseUrls;
  deploymentPresets: readonly DeploymentPreset[];
  /** SVC_CURRENCY: catalog prices (USD) are taken only when it is USD. */
  currency: string;
  input: CreateModelPresetInput;
}): Promise<PublicModelPreset> {
  const actor = requireActor(ctx);
  assertHasScopes(actor.scopes, ['project:admin']);
  const body = v.parse(CreateModelPresetInput, input);
  const provider = await loadLiveProvider(ctx, { organizationId: actor.organizationId, providerId: body.providerId });
  const config = normalizePresetConfig(provider.providerType, body, 'body');
  if (deploymentPresets.some((preset) => preset.key === body.key)) {
    throw new ConflictError(`Preset key "${body.key}" is used by a deployment preset`);
  }
  let prices: ModelPrices | null = body.prices ? operatorPrices(body.prices) : null;
  let contextWindow: number | null = null;
  if (!config.savedGatewayPreset) {
    const catalog = await fetchProviderCatalog({ providerType: provider.providerType, apiKey: providerApiKey(keyring, provider), baseUrls });
    const entry = catalog.find((candidate) => candidate.model === config.model);
    checkPresetAgainstCatalog(config, entry, 'body');
    contextWindow = entry?.contextWindow ?? null;
    // Omitted prices come from the catalog where the provider publishes them in our currency;
    // an explicit null keeps the preset unpriced.
    if (body.prices === undefined && entry?.pricesUsd && currency === 'USD') prices = { ...entry.pricesUsd, source: 'catalog' };
  }
  return withTransaction(ctx, async (tx) => {
    // Re-read under a share lock: a concurrent removal either waits for this insert (and then
    // sees the live preset) or has already removed the provider (404 here).
    const locked = await loadLiveProvider(tx, { organizationId: actor.organizationId, providerId: provider.id, lock: 'share' });
    let row;
    try {
      [row] = await tx.db
        .insert(modelPresets)
        .values({
          organizationId: actor.organizationId,
          projectId: actor.projectId,
          key: body.key,
          displayName: body.displayName,
          providerId: locked.id,
          model: config.model,
          routing: config.routing,
          settings: config.settings,
          prices,
          contextWindow,
          createdByPrincipalId: actor.principalId,
          createdAt: tx.clock.now(),
        })
        .returning();
    } catch (error) {
      if (isUniqueViolation(error))
        throw new ConflictError(`A model preset with key "${body.key}" already exists in this project (archived keys stay reserved)`);
      throw error;
    }
    await recordAudit(tx, {
      action: 'model_preset.created',
      targetType: 'model_preset',
      targetId: row!.id,
      details: { key: body.key, providerId: locked.id, model: config.model, prices },
    });
    return toProjectPresetResponse(row!, locked);
  });
}
