import { curatedCapabilities } from './capabilities.ts';
import { modelIdentifier, type CatalogEntry } from './types.ts';

/** One item of OpenAI `GET /models` (`{object: "list", data: [...]}`): ids only. */
export type VendorAModel = { id: string; object?: string; created?: number; owned_by?: string };

// Model families the Responses API drives as a chat agent.
const CHAT_FAMILY = /^(gpt-|chatgpt-|codex-|o\d)/;
// Families or variants that are not text chat: embeddings, speech, images, moderation, realtime,
// legacy completions, and tool-specific models.
const NOT_CHAT = /(embedding|whisper|tts|transcribe|dall-e|image|moderation|audio|realtime|search|instruct|davinci|babbage|computer-use|deep-research)/;

/**
 * Maps an OpenAI model to a catalog entry. OpenAI lists no metadata, so limits, reasoning and
 * effort levels come from the curated table (null when the model is not in it).
 * `runtimeSupported`: a chat family id (`gpt-`, `chatgpt-`, `codex-`, `o<digit>`) that names no
 * non-chat variant.
 */
export function toVendorAEntry(model: VendorAModel): CatalogEntry {
  const curated = curatedCapabilities('vendor_a', model.id);
  return {
    providerType: 'vendor_a',
    model: modelIdentifier('vendor_a', model.id),
    catalogId: model.id,
    displayName: model.id,
    contextWindow: curated.contextWindow ?? null,
    outputLimit: curated.outputLimit ?? null,
    reasoning: curated.reasoning ?? null,
    adaptiveThinking: null,
    thinkingCanBeDisabled: curated.thinkingCanBeDisabled ?? null,
    effortLevels: curated.effortLevels ?? null,
    runtimeSupported: CHAT_FAMILY.test(model.id) && !NOT_CHAT.test(model.id),
  };
}
