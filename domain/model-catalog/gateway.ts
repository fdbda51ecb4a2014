import { modelIdentifier, positiveIntegerOrNull, type CatalogEntry, type CatalogPrices } from './types.ts';

/** One item of OpenRouter `GET /models` (`{data: [...]}`). */
export type GatewayModel = {
  id: string;
  name?: string;
  context_length?: number | null;
  architecture?: { modality?: string; input_modalities?: string[]; output_modalities?: string[] } | null;
  top_provider?: { context_length?: number | null; max_completion_tokens?: number | null } | null;
  supported_parameters?: string[] | null;
  /** USD per token, as decimal strings; `-1` marks a variable price (a router). */
  pricing?: { prompt?: unknown; completion?: unknown; input_cache_read?: unknown; input_cache_write?: unknown } | null;
};

/** A per-token price string as USD per million tokens; null when absent, negative or malformed. */
function perMillion(value: unknown): number | null {
  if (typeof value !== 'string' && typeof value !== 'number') return null;
  const perToken = Number(value);
  if (!Number.isFinite(perToken) || perToken < 0 || String(value).trim() === '') return null;
  // Twelve significant digits drop the float noise of the multiplication (0.000003 * 1e6).
  return Number((perToken * 1_000_000).toPrecision(12));
}

/** The published prices, when both the prompt and completion prices are fixed. */
export function gatewayPrices(pricing: GatewayModel['pricing']): CatalogPrices | null {
  const input = perMillion(pricing?.prompt);
  const output = perMillion(pricing?.completion);
  if (input === null || output === null) return null;
  return { input, output, cacheRead: perMillion(pricing?.input_cache_read), cacheWrite: perMillion(pricing?.input_cache_write) };
}

function outputModalities(model: GatewayModel): string[] | null {
  const listed = model.architecture?.output_modalities;
  if (Array.isArray(listed)) return listed;
  const modality = model.architecture?.modality;
  return typeof modality === 'string' && modality.includes('->') ? modality.split('->')[1]!.split('+') : null;
}

/**
 * Maps an OpenRouter model to a catalog entry: `name`, `context_length` (else the top
 * provider's), `top_provider.max_completion_tokens`, and reasoning from `supported_parameters`
 * containing `reasoning`. Gateway entries carry no thinking fields (routing, not settings).
 *
 * `runtimeSupported`: the model outputs text and, when it lists its parameters, accepts
 * `tools` (every agent turn may offer tools).
 */
export function toGatewayEntry(model: GatewayModel): CatalogEntry {
  const parameters = Array.isArray(model.supported_parameters) ? model.supported_parameters : null;
  const outputs = outputModalities(model);
  return {
    providerType: 'gateway',
    model: modelIdentifier('gateway', model.id),
    catalogId: model.id,
    displayName: model.name || model.id,
    contextWindow: positiveIntegerOrNull(model.context_length) ?? positiveIntegerOrNull(model.top_provider?.context_length),
    outputLimit: positiveIntegerOrNull(model.top_provider?.max_completion_tokens),
    reasoning: parameters ? parameters.includes('reasoning') : null,
    pricesUsd: gatewayPrices(model.pricing),
    runtimeSupported: (outputs === null || outputs.includes('text')) && (parameters === null || parameters.includes('tools')),
  };
}
