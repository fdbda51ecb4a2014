import { curatedCapabilities } from '../../../domain/model-catalog/capabilities.ts';
import type { ModelProviderType } from '../../../domain/model-catalog/types.ts';
import type { ModelPrices } from '../../../domain/usage/prices.ts';
import type { CredentialKeyring } from '../../kernel/credentials/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import type { DeploymentPreset } from '../../configuration/model-presets/index.ts';
import { providerTypeOfModel } from '../../configuration/model-presets/index.ts';
import { loadProjectPresets, resolveDeploymentPresets } from '../../configuration/model-presets/index.ts';
import { providerApiKey } from '../../configuration/model-providers/index.ts';

/** A project preset with its provider connection (archived presets included: pinned versions still resolve them). */
export type ProjectPreset = Awaited<ReturnType<typeof loadProjectPresets>>[number];

export type RunModel = {
  providerType: ModelProviderType;
  /** The preset's key: what the agent version named (metrics label it so). */
  preset: string;
  /** The vendor's model id: the preset's model without the `<providerType>/` prefix. */
  model: string;
  settings: Record<string, unknown> | null;
  routing: Record<string, unknown>;
  apiKey: string;
  /** The preset's prices (null: unpriced); a call's cost is figured at them. */
  prices: ModelPrices | null;
  /** The model's context window: the catalog's when the preset was created, else the curated table's; null when unknown. */
  contextWindow: number | null;
};

export type RunModelUnavailable = { unavailable: true; errorCode: 'model_provider_removed' | 'model_preset_unavailable'; errorExplanation: string };

/**
 * The model a run calls: its pinned version's preset key, resolved in the run's project
 * (archived project presets still resolve for versions that pinned them), then the provider
 * connection and its decrypted key. A removed provider is a run failure, not a retry.
 */
export async function resolveRunModel(
  ctx: ServiceContext,
  input: {
    organizationId: string;
    projectId: string;
    presetKey: string;
    keyring: CredentialKeyring;
    deploymentPresets: readonly DeploymentPreset[];
    /** The project's preset of that key with its provider, as the caller read it (null: none); read here when absent. */
    projectPreset?: ProjectPreset | null;
  },
): Promise<RunModel | RunModelUnavailable> {
  const scope = { organizationId: input.organizationId, projectId: input.projectId };
  const [project] =
    input.projectPreset === undefined
      ? await loadProjectPresets(ctx, { ...scope, keys: [input.presetKey], includeArchived: true })
      : input.projectPreset
        ? [input.projectPreset]
        : [];
  if (project) {
    const { preset, provider } = project;
    if (provider.removedAt || !provider.credentialCiphertext) {
      return {
        unavailable: true,
        errorCode: 'model_provider_removed',
        errorExplanation: `The model provider "${provider.key}" of preset "${preset.key}" was removed.`,
      };
    }
    return toRunModel(
      input.presetKey,
      preset.model,
      preset.settings,
      preset.routing,
      providerApiKey(input.keyring, provider),
      preset.prices ?? null,
      preset.contextWindow,
    );
  }
  const [deployment] = await resolveDeploymentPresets(ctx, { ...scope, presets: input.deploymentPresets, keys: [input.presetKey] });
  if (deployment?.provider && deployment.provider.credentialCiphertext) {
    const { preset, provider } = deployment;
    return toRunModel(
      input.presetKey,
      preset.model,
      (preset.settings as Record<string, unknown> | null) ?? null,
      (preset.routing as Record<string, unknown> | undefined) ?? {},
      providerApiKey(input.keyring, provider),
      preset.prices ?? null,
      null,
    );
  }
  return {
    unavailable: true,
    errorCode: 'model_preset_unavailable',
    errorExplanation: `The model preset "${input.presetKey}" has no usable provider connection.`,
  };
}

function toRunModel(
  presetKey: string,
  model: string,
  settings: Record<string, unknown> | null,
  routing: Record<string, unknown>,
  apiKey: string,
  prices: ModelPrices | null,
  catalogWindow: number | null,
): RunModel {
  const providerType = providerTypeOfModel(model);
  const vendorModel = model.slice(providerType.length + 1);
  const curated = providerType === 'gateway' ? undefined : curatedCapabilities(providerType, vendorModel).contextWindow;
  return { providerType, preset: presetKey, model: vendorModel, settings, routing, apiKey, prices, contextWindow: catalogWindow ?? curated ?? null };
}
