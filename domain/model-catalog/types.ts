import * as v from 'valibot';

/** Neutral model provider types of spec 1; ARCHITECTURE.md maps them to wire protocols. */
export const MODEL_PROVIDER_TYPES = ['gateway', 'vendor_a', 'vendor_b', 'vendor_c'] as const;
export type ModelProviderType = (typeof MODEL_PROVIDER_TYPES)[number];
export const ModelProviderType = v.picklist(MODEL_PROVIDER_TYPES, 'providerType must be gateway, vendor_a, vendor_b or vendor_c');

/** Every effort value any provider type's settings accept (spec 2 settings tables). */
export const EFFORT_LEVELS = ['none', 'low', 'medium', 'high', 'xhigh', 'max'] as const;
export type EffortLevel = (typeof EFFORT_LEVELS)[number];

/**
 * One model of a provider's catalog (spec 1 "Catalog entry"). `displayName`, `contextWindow`,
 * `outputLimit` and `reasoning` are our names for the fields the spec leaves unnamed; unknown
 * metadata is null. The three thinking fields are present on vendor_a/b/c entries (null when
 * unknown) and absent on gateway entries.
 */
export type CatalogEntry = {
  providerType: ModelProviderType;
  /** `<providerType>/<catalogId>`: the identifier presets store. */
  model: string;
  /** The vendor's own model id. */
  catalogId: string;
  displayName: string;
  contextWindow: number | null;
  outputLimit: number | null;
  reasoning: boolean | null;
  adaptiveThinking?: boolean | null;
  thinkingCanBeDisabled?: boolean | null;
  effortLevels?: EffortLevel[] | null;
  /**
   * Gateway entries only: the provider's published prices in USD per million tokens (null when it
   * publishes none or a variable price). A preset of this model takes them when the
   * installation's currency is USD and the operator gives none.
   */
  pricesUsd?: CatalogPrices | null;
  /** False for models the runtime cannot drive; such entries cannot back a preset. */
  runtimeSupported: boolean;
};

/** Prices per million tokens; a cache price of null is billed as input. */
export type CatalogPrices = { input: number; output: number; cacheRead: number | null; cacheWrite: number | null };

export const modelIdentifier = (providerType: ModelProviderType, catalogId: string) => `${providerType}/${catalogId}`;

/** A positive integer from a vendor payload, or null (absent, zero or malformed). */
export function positiveIntegerOrNull(value: unknown): number | null {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : null;
}
