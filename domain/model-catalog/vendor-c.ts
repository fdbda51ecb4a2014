import { curatedCapabilities } from './capabilities.ts';
import { modelIdentifier, positiveIntegerOrNull, type CatalogEntry } from './types.ts';

/** One item of Gemini `GET /models` (`{models, nextPageToken}`). */
export type VendorCModel = {
  name: string;
  baseModelId?: string;
  version?: string;
  displayName?: string;
  description?: string;
  inputTokenLimit?: number;
  outputTokenLimit?: number;
  supportedGenerationMethods?: string[];
  thinking?: boolean;
};

// generateContent models that do not produce text turns: image, speech and live-audio variants.
const NOT_TEXT = /(embedding|aqa|imagen|veo|image|tts|audio|live)/;

/**
 * Maps a Gemini model to a catalog entry. `catalogId` is the resource name without its
 * `models/` prefix (what generateContent takes). Limits and reasoning (`thinking`) come from
 * the vendor; effort levels and `thinkingCanBeDisabled` from the curated table.
 *
 * `runtimeSupported`: the model offers `generateContent`, is not an image, speech or embedding
 * variant, and is not known to lack thinking (vendor_c presets always store an effort and
 * reasoning cannot be disabled, spec 2).
 */
export function toVendorCEntry(model: VendorCModel): CatalogEntry {
  const catalogId = model.name.replace(/^models\//, '');
  const curated = curatedCapabilities('vendor_c', catalogId);
  const reasoning = typeof model.thinking === 'boolean' ? model.thinking : null;
  const generates = model.supportedGenerationMethods?.includes('generateContent') ?? false;
  return {
    providerType: 'vendor_c',
    model: modelIdentifier('vendor_c', catalogId),
    catalogId,
    displayName: model.displayName || catalogId,
    contextWindow: positiveIntegerOrNull(model.inputTokenLimit),
    outputLimit: positiveIntegerOrNull(model.outputTokenLimit),
    reasoning,
    adaptiveThinking: null,
    thinkingCanBeDisabled: curated.thinkingCanBeDisabled ?? null,
    effortLevels: reasoning === false ? [] : (curated.effortLevels ?? null),
    runtimeSupported: generates && !NOT_TEXT.test(catalogId) && reasoning !== false,
  };
}
