import { curatedCapabilities } from './capabilities.ts';
import { modelIdentifier, positiveIntegerOrNull, type CatalogEntry, type EffortLevel } from './types.ts';

type Support = { supported?: boolean } | null | undefined;

/** One item of Anthropic `GET /v1/models` (`{data, has_more, first_id, last_id}`). */
export type VendorBModel = {
  id: string;
  type?: string;
  display_name?: string;
  created_at?: string;
  max_input_tokens?: number | null;
  max_tokens?: number | null;
  capabilities?: {
    thinking?: { supported?: boolean; types?: { adaptive?: Support; enabled?: Support } } | null;
    effort?: ({ supported?: boolean } & Partial<Record<'low' | 'medium' | 'high' | 'xhigh' | 'max', Support>>) | null;
  } | null;
};

const VENDOR_B_EFFORTS = ['low', 'medium', 'high', 'xhigh', 'max'] as const satisfies readonly EffortLevel[];

/**
 * Maps an Anthropic model to a catalog entry. Limits (`max_input_tokens`, `max_tokens`),
 * reasoning (`capabilities.thinking.supported`), `adaptiveThinking`
 * (`capabilities.thinking.types.adaptive`) and `effortLevels` (`capabilities.effort`) come
 * from the vendor; `thinkingCanBeDisabled` from the curated table (true for other thinking
 * models). Unknown capabilities stay null.
 *
 * `runtimeSupported`: every preset stores an effort and a thinking mode the model must
 * support (spec 2), so a model that supports no effort level, or neither adaptive nor disabled
 * thinking, cannot back a preset.
 */
export function toVendorBEntry(model: VendorBModel): CatalogEntry {
  const curated = curatedCapabilities('vendor_b', model.id);
  const thinking = model.capabilities?.thinking ?? null;
  const effort = model.capabilities?.effort ?? null;
  const reasoning = typeof thinking?.supported === 'boolean' ? thinking.supported : null;
  const adaptiveThinking = thinking ? thinking.supported === true && thinking.types?.adaptive?.supported === true : null;
  const effortLevels = effort ? (effort.supported === true ? VENDOR_B_EFFORTS.filter((level) => effort[level]?.supported === true) : []) : null;
  const thinkingCanBeDisabled = curated.thinkingCanBeDisabled ?? (reasoning === null ? null : true);
  const hasThinkingMode = adaptiveThinking !== false || thinkingCanBeDisabled !== false;
  return {
    providerType: 'vendor_b',
    model: modelIdentifier('vendor_b', model.id),
    catalogId: model.id,
    displayName: model.display_name || model.id,
    contextWindow: positiveIntegerOrNull(model.max_input_tokens) ?? curated.contextWindow ?? null,
    outputLimit: positiveIntegerOrNull(model.max_tokens) ?? curated.outputLimit ?? null,
    reasoning,
    adaptiveThinking,
    thinkingCanBeDisabled,
    effortLevels,
    runtimeSupported: hasThinkingMode && (effortLevels === null || effortLevels.length > 0),
  };
}
