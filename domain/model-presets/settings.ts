import * as v from 'valibot';

/**
 * Preset settings per provider type (spec 2 settings tables). Every field is optional and
 * takes its default, so the stored settings are always complete (an older client that omits
 * `settings` stores the defaults). Unknown fields are refused.
 */
export const VendorASettings = v.strictObject(
  {
    textFormat: v.optional(v.picklist(['text'], 'must be text'), 'text'),
    mode: v.optional(v.picklist(['standard', 'pro'], 'must be standard or pro'), 'standard'),
    effort: v.optional(v.picklist(['none', 'low', 'medium', 'high', 'xhigh', 'max'], 'must be none, low, medium, high, xhigh or max'), 'medium'),
    verbosity: v.optional(v.picklist(['low', 'medium', 'high'], 'must be low, medium or high'), 'medium'),
    summary: v.optional(v.picklist(['auto', 'concise', 'detailed'], 'must be auto, concise or detailed'), 'auto'),
  },
  'settings must be an object with known settings fields only',
);
export type VendorASettings = v.InferOutput<typeof VendorASettings>;

export const VENDOR_B_MAX_TOKENS = 300_000;
const MAX_TOKENS_MESSAGE = `must be an integer from 1 to ${VENDOR_B_MAX_TOKENS.toLocaleString('en-US')}`;

export const VendorBSettings = v.strictObject(
  {
    // Manual thinking budgets (`enabled` + budget_tokens) are not accepted (spec 2).
    thinking: v.optional(v.picklist(['disabled', 'adaptive'], 'must be disabled or adaptive (manual thinking budgets are not accepted)'), 'adaptive'),
    maxTokens: v.optional(
      v.pipe(
        v.number(MAX_TOKENS_MESSAGE),
        v.integer(MAX_TOKENS_MESSAGE),
        v.minValue(1, MAX_TOKENS_MESSAGE),
        v.maxValue(VENDOR_B_MAX_TOKENS, MAX_TOKENS_MESSAGE),
      ),
      20_000,
    ),
    effort: v.optional(v.picklist(['low', 'medium', 'high', 'xhigh', 'max'], 'must be low, medium, high, xhigh or max'), 'high'),
  },
  'settings must be an object with known settings fields only',
);
export type VendorBSettings = v.InferOutput<typeof VendorBSettings>;

export const VendorCSettings = v.strictObject(
  {
    textFormat: v.optional(v.picklist(['text'], 'must be text'), 'text'),
    // No `none`: vendor_c reasoning cannot be disabled (spec 2).
    effort: v.optional(v.picklist(['low', 'medium', 'high', 'xhigh'], 'must be low, medium, high or xhigh'), 'high'),
  },
  'settings must be an object with known settings fields only',
);
export type VendorCSettings = v.InferOutput<typeof VendorCSettings>;

export type PresetSettings = VendorASettings | VendorBSettings | VendorCSettings;
