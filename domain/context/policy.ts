import type { ContextPolicy } from '../agent-config/index.ts';

/** Defaults of an agent version's `context` (docs/decisions/context-compaction.md). */
export const CONTEXT_DEFAULTS = {
  /** Compact when a turn's input would pass this share of the model's context window. */
  windowShare: 0.8,
  keepRecentTurns: 2,
  maxCompactionsPerRun: 3,
} as const;

/** An agent version's `context` with every default resolved for its model. */
export type ResolvedContextPolicy = {
  /** Compact before a turn whose input would pass this many tokens; null: only when the vendor says it overflowed. */
  compactAtTokens: number | null;
  keepRecentTurns: number;
  maxCompactionsPerRun: number;
  /** The preset the summary is written with. */
  summaryPreset: string;
};

/**
 * `compactAtTokens` left out: 80 % of the model's context window when the catalog knows it, else
 * null (the runtime then reacts to the vendor's overflow answer alone); an explicit null means the
 * same whatever the window. `summaryPreset` left out: the agent's own preset.
 */
export function resolveContextPolicy(policy: ContextPolicy | undefined, input: { contextWindow: number | null; modelPreset: string }): ResolvedContextPolicy {
  const fromWindow = input.contextWindow === null ? null : Math.floor(input.contextWindow * CONTEXT_DEFAULTS.windowShare);
  return {
    compactAtTokens: policy?.compactAtTokens === undefined ? fromWindow : policy.compactAtTokens,
    keepRecentTurns: policy?.keepRecentTurns ?? CONTEXT_DEFAULTS.keepRecentTurns,
    maxCompactionsPerRun: policy?.maxCompactionsPerRun ?? CONTEXT_DEFAULTS.maxCompactionsPerRun,
    summaryPreset: policy?.summaryPreset ?? input.modelPreset,
  };
}

/** The run failure when a turn no longer fits the model's window and compacting cannot help. */
export const CONTEXT_LIMIT_REACHED = 'context_limit_reached';

/** Names the sizes: what the vendor said, the turn's estimate, and why no compaction helps. */
export function contextLimitExplanation(
  overflow: { errorExplanation: string; tokens: number },
  outcome: { kind: 'rejected'; reason: string } | { kind: 'limit'; explanation: string },
): string {
  const why = outcome.kind === 'rejected' ? `the summary was rejected (${outcome.reason})` : outcome.explanation;
  return `The conversation no longer fits the model's context window: the turn's input was about ${overflow.tokens} tokens and ${why}. The provider said: ${overflow.errorExplanation}`.slice(
    0,
    1000,
  );
}
