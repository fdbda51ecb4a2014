import * as v from 'valibot';
import { ConfigurationKey, DisplayName } from '../model-catalog/provider-input.ts';
import { MODEL_PROVIDER_TYPES, type ModelProviderType } from '../model-catalog/types.ts';
import { ValidationError } from '../errors.ts';
import { operatorPrices, PricesInput, type ModelPrices } from '../usage/prices.ts';
import { normalizePresetConfig, type PresetConfig } from './config.ts';

/**
 * One entry of SVC_DEPLOYMENT_PRESETS_FILE: a JSON array of
 * `{key, displayName, providerKey, model, routing?, settings?, prices?}`. The provider type is the
 * model's prefix; `providerKey` names the organization's provider connection the preset runs
 * through (resolved per organization at use).
 */
const DeploymentPresetEntry = v.strictObject({
  key: ConfigurationKey,
  displayName: DisplayName,
  providerKey: ConfigurationKey,
  model: v.pipe(v.string('model must be a string'), v.minLength(1, 'model must not be empty'), v.maxLength(300, 'model must be at most 300 characters')),
  routing: v.optional(v.unknown()),
  settings: v.optional(v.unknown()),
  /** Prices per million tokens in the installation's currency (docs/decisions/preset-prices.md). */
  prices: v.optional(v.nullable(PricesInput)),
});

export const MAX_DEPLOYMENT_PRESETS = 100;

export const DeploymentPresetsFile = v.pipe(
  v.array(DeploymentPresetEntry, 'the file must hold a JSON array of presets'),
  v.maxLength(MAX_DEPLOYMENT_PRESETS, `the file may hold at most ${MAX_DEPLOYMENT_PRESETS} presets`),
);

export type DeploymentPresetDefinition = {
  key: string;
  displayName: string;
  providerKey: string;
  prices: ModelPrices | null;
} & PresetConfig;

/**
 * Validates the parsed file: the shape, unique keys, and each preset's model, routing and
 * settings by the same rules as API-created presets (catalog checks happen at use, not here).
 * Throws a ValidationError whose path names the entry (`presets[2].settings.effort`).
 */
export function parseDeploymentPresets(json: unknown): DeploymentPresetDefinition[] {
  const result = v.safeParse(DeploymentPresetsFile, json);
  if (!result.success) {
    const issue = result.issues[0];
    const keys = issue.path?.map((item) => item.key) ?? [];
    const path = 'presets' + keys.map((key) => (typeof key === 'number' ? `[${key}]` : `.${String(key)}`)).join('');
    throw new ValidationError(`${path}: ${issue.message}`, { path });
  }
  const seen = new Set<string>();
  return result.output.map((entry, index) => {
    const at = `presets[${index}]`;
    if (seen.has(entry.key)) throw new ValidationError(`${at}.key: duplicate key ${entry.key}`, { path: `${at}.key` });
    seen.add(entry.key);
    const providerType = MODEL_PROVIDER_TYPES.find((type) => entry.model.startsWith(`${type}/`)) as ModelProviderType | undefined;
    if (!providerType) {
      throw new ValidationError(`${at}.model: must start with gateway/, vendor_a/, vendor_b/ or vendor_c/`, { path: `${at}.model` });
    }
    const config = normalizePresetConfig(providerType, entry, at);
    return {
      key: entry.key,
      displayName: entry.displayName,
      providerKey: entry.providerKey,
      ...config,
      prices: entry.prices ? operatorPrices(entry.prices) : null,
    };
  });
}
