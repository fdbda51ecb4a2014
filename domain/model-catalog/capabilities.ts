import type { EffortLevel } from './types.ts';

/**
 * Curated capabilities: what a vendor's model list does not say. Each row matches a vendor id
 * exactly or as a prefix followed by `-` (so `gpt-5` covers `gpt-5-mini` and dated snapshots);
 * the first matching row wins, so more specific rows come first. A field left out stays
 * unknown (null in the catalog). Sources: the vendors' model documentation at the time of
 * writing; update a row when a vendor changes a model.
 *
 * - vendor_a (OpenAI `/models` returns only ids): every field comes from here.
 * - vendor_b (Anthropic `/v1/models` reports limits, thinking types and effort levels): only
 *   `thinkingCanBeDisabled` comes from here, and limits when the vendor reports none.
 * - vendor_c (Gemini `/models` reports limits and a `thinking` flag): effort levels and
 *   `thinkingCanBeDisabled` come from here.
 */
export type CuratedCapabilities = {
  contextWindow?: number;
  outputLimit?: number;
  reasoning?: boolean;
  effortLevels?: EffortLevel[];
  thinkingCanBeDisabled?: boolean;
};

type Row = { id: string } & CuratedCapabilities;

const VENDOR_A: Row[] = [
  {
    id: 'gpt-5.2',
    contextWindow: 400_000,
    outputLimit: 128_000,
    reasoning: true,
    effortLevels: ['none', 'low', 'medium', 'high', 'xhigh'],
    thinkingCanBeDisabled: true,
  },
  {
    id: 'gpt-5.1',
    contextWindow: 400_000,
    outputLimit: 128_000,
    reasoning: true,
    effortLevels: ['none', 'low', 'medium', 'high'],
    thinkingCanBeDisabled: true,
  },
  { id: 'gpt-5-pro', contextWindow: 400_000, outputLimit: 272_000, reasoning: true, effortLevels: ['high'], thinkingCanBeDisabled: false },
  // gpt-5's lowest effort is `minimal`, which is not one of the spec's values; it cannot be disabled.
  { id: 'gpt-5', contextWindow: 400_000, outputLimit: 128_000, reasoning: true, effortLevels: ['low', 'medium', 'high'], thinkingCanBeDisabled: false },
  { id: 'o4-mini', contextWindow: 200_000, outputLimit: 100_000, reasoning: true, effortLevels: ['low', 'medium', 'high'], thinkingCanBeDisabled: false },
  { id: 'o3', contextWindow: 200_000, outputLimit: 100_000, reasoning: true, effortLevels: ['low', 'medium', 'high'], thinkingCanBeDisabled: false },
  { id: 'o1', contextWindow: 200_000, outputLimit: 100_000, reasoning: true, effortLevels: ['low', 'medium', 'high'], thinkingCanBeDisabled: false },
  { id: 'gpt-4.1', contextWindow: 1_047_576, outputLimit: 32_768, reasoning: false },
  { id: 'gpt-4o', contextWindow: 128_000, outputLimit: 16_384, reasoning: false },
];

const VENDOR_B: Row[] = [
  // These lines think adaptively only; `thinking: disabled` is refused by the vendor.
  { id: 'claude-mythos', thinkingCanBeDisabled: false },
  { id: 'claude-fable', thinkingCanBeDisabled: false },
  { id: 'claude-opus-4', outputLimit: 32_000, contextWindow: 200_000 },
  { id: 'claude-sonnet-4', outputLimit: 64_000, contextWindow: 200_000 },
  { id: 'claude-haiku-4', outputLimit: 64_000, contextWindow: 200_000 },
];

const VENDOR_C: Row[] = [
  { id: 'gemini-3-pro', effortLevels: ['low', 'high'], thinkingCanBeDisabled: false },
  { id: 'gemini-3-flash', effortLevels: ['low', 'medium', 'high'], thinkingCanBeDisabled: false },
  { id: 'gemini-2.5-pro', effortLevels: ['low', 'medium', 'high'], thinkingCanBeDisabled: false },
  { id: 'gemini-2.5-flash', effortLevels: ['low', 'medium', 'high'], thinkingCanBeDisabled: true },
];

const TABLES = { vendor_a: VENDOR_A, vendor_b: VENDOR_B, vendor_c: VENDOR_C } as const;

/** The curated row for a vendor model id, or an empty object when none matches. */
export function curatedCapabilities(providerType: keyof typeof TABLES, catalogId: string): CuratedCapabilities {
  const row = TABLES[providerType].find((candidate) => catalogId === candidate.id || catalogId.startsWith(`${candidate.id}-`));
  if (!row) return {};
  const { id: _id, ...capabilities } = row;
  return capabilities;
}
