import type { CatalogEntry, ModelProviderType } from '../model-catalog/types.ts';
import { ValidationError } from '../errors.ts';
import { parseAt } from './parse-at.ts';
import { EmptyRouting, GatewayRouting } from './routing.ts';
import { VendorASettings, VendorBSettings, VendorCSettings } from './settings.ts';

/** OpenRouter saved presets: `gateway/@preset/<slug>` (spec 1). */
export const SAVED_GATEWAY_PRESET = /^@preset\/[a-z0-9][a-z0-9_-]{0,63}$/;

/** What a preset stores besides its identity, normalized (defaults applied). */
export type PresetConfig = {
  providerType: ModelProviderType;
  model: string;
  /** The vendor id (the model without its `<providerType>/` prefix). */
  catalogId: string;
  routing: Record<string, unknown>;
  /** Null for gateway presets; complete (defaults applied) for the vendors. */
  settings: Record<string, unknown> | null;
  /** `gateway/@preset/<slug>`: not in the catalog, checked by pattern only. */
  savedGatewayPreset: boolean;
};

const SETTINGS = { vendor_a: VendorASettings, vendor_b: VendorBSettings, vendor_c: VendorCSettings } as const;

/**
 * Checks a preset's model, routing and settings against the rules of its provider type that
 * need no catalog (spec 2 rule 2 and the tables), reporting paths under `path`.
 */
export function normalizePresetConfig(
  providerType: ModelProviderType,
  input: { model: string; routing?: unknown; settings?: unknown },
  path: string,
): PresetConfig {
  const prefix = `${providerType}/`;
  if (!input.model.startsWith(prefix) || input.model.length === prefix.length) {
    throw new ValidationError(`model must be a ${providerType} model identifier starting with "${prefix}" (see the model catalog)`, { path: `${path}.model` });
  }
  const catalogId = input.model.slice(prefix.length);
  if (providerType === 'gateway') {
    if (input.settings !== undefined && input.settings !== null) {
      throw new ValidationError('gateway presets take a routing policy and no settings object', { path: `${path}.settings` });
    }
    const savedGatewayPreset = catalogId.startsWith('@preset/');
    if (savedGatewayPreset && !SAVED_GATEWAY_PRESET.test(catalogId)) {
      throw new ValidationError('a saved gateway preset must be gateway/@preset/<slug> with a slug matching ^[a-z0-9][a-z0-9_-]{0,63}$', {
        path: `${path}.model`,
      });
    }
    const routing = parseAt(GatewayRouting, input.routing ?? {}, `${path}.routing`);
    return { providerType, model: input.model, catalogId, routing, settings: null, savedGatewayPreset };
  }
  parseAt(EmptyRouting, input.routing ?? {}, `${path}.routing`);
  const settings = parseAt(SETTINGS[providerType], input.settings ?? {}, `${path}.settings`);
  return { providerType, model: input.model, catalogId, routing: {}, settings, savedGatewayPreset: false };
}

/**
 * Checks a normalized preset against its catalog entry (spec 2 rules 1 and 3): the model is
 * listed and runtime-supported, and the model supports the saved thinking mode, effort and
 * token ceiling. Capabilities the catalog does not know (null) are not held against the preset.
 */
export function checkPresetAgainstCatalog(config: PresetConfig, entry: CatalogEntry | undefined, path: string): void {
  if (!entry) {
    throw new ValidationError(`model ${config.model} is not in the provider's model catalog`, { path: `${path}.model` });
  }
  if (!entry.runtimeSupported) {
    throw new ValidationError(`model ${config.model} is not supported by the runtime (runtimeSupported is false)`, { path: `${path}.model` });
  }
  const settings = config.settings ?? {};
  const effort = settings.effort as string | undefined;
  if (effort === 'none' && entry.thinkingCanBeDisabled === false) {
    throw new ValidationError(`model ${config.model} cannot disable thinking, so effort none is not supported`, { path: `${path}.settings.effort` });
  }
  if (config.providerType === 'vendor_b') {
    if (settings.thinking === 'adaptive' && entry.adaptiveThinking === false) {
      throw new ValidationError(`model ${config.model} does not support adaptive thinking`, { path: `${path}.settings.thinking` });
    }
    if (settings.thinking === 'disabled' && entry.thinkingCanBeDisabled === false) {
      throw new ValidationError(`model ${config.model} cannot disable thinking`, { path: `${path}.settings.thinking` });
    }
    const maxTokens = settings.maxTokens as number;
    if (entry.outputLimit !== null && maxTokens > entry.outputLimit) {
      throw new ValidationError(`maxTokens must be at most ${entry.outputLimit}, the output limit of ${config.model}`, { path: `${path}.settings.maxTokens` });
    }
  }
  if (effort !== undefined && entry.effortLevels && !entry.effortLevels.includes(effort as never)) {
    const supported = entry.effortLevels.length > 0 ? entry.effortLevels.join(', ') : 'none';
    throw new ValidationError(`model ${config.model} does not support effort ${effort} (supported: ${supported})`, { path: `${path}.settings.effort` });
  }
}
