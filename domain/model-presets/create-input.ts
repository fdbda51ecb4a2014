import * as v from 'valibot';
import { ConfigurationKey, DisplayName } from '../model-catalog/provider-input.ts';
import { PricesInput } from '../usage/prices.ts';

const JsonObject = (name: string) =>
  v.custom<Record<string, unknown>>((value) => typeof value === 'object' && value !== null && !Array.isArray(value), `${name} must be an object`);

/**
 * `POST /model-presets` body. `routing` and `settings` are checked in depth per provider type
 * by `normalizePresetConfig`; here only their JSON type. `routing` may be omitted (= `{}`);
 * `settings` may be omitted or null (= the defaults; gateway presets refuse an object).
 */
export const CreateModelPresetInput = v.strictObject({
  key: ConfigurationKey,
  displayName: DisplayName,
  providerId: v.pipe(v.string('providerId must be a string'), v.uuid('providerId must be a UUID')),
  model: v.pipe(v.string('model must be a string'), v.minLength(1, 'model must not be empty'), v.maxLength(300, 'model must be at most 300 characters')),
  routing: v.optional(JsonObject('routing')),
  settings: v.optional(v.nullable(JsonObject('settings'))),
  /** Per million tokens in the installation's currency; omitted: the catalog's, where published. */
  prices: v.optional(v.nullable(PricesInput)),
});

/** `PATCH /model-presets/{id}`: the one field a preset may change, its prices (`null`: unpriced). */
export const UpdateModelPresetInput = v.strictObject({ prices: v.nullable(PricesInput) });
export type UpdateModelPresetInput = v.InferOutput<typeof UpdateModelPresetInput>;
export type CreateModelPresetInput = v.InferOutput<typeof CreateModelPresetInput>;
