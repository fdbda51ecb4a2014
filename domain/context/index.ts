/** Long conversations: the context policy, the token estimate, where a compaction cuts, the summary prompt. */
export { CONTEXT_DEFAULTS, CONTEXT_LIMIT_REACHED, contextLimitExplanation, resolveContextPolicy, type ResolvedContextPolicy } from './policy.ts';
export {
  CHARS_PER_TOKEN,
  TOKENS_PER_MESSAGE,
  contextTokens,
  estimateMessageTokens,
  estimateMessagesTokens,
  estimatePrefixTokens,
  estimateTextTokens,
  type EstimatedMessage,
} from './tokens.ts';
export { compactionStepKey, maxKeptTokens, planCompaction, summaryTurnId, type CompactionPlan, type SequencedMessage } from './split.ts';
export { SUMMARY_INSTRUCTIONS, judgeSummary, renderSummaryForModel, summaryRequestText, type SummaryVerdict } from './summary-prompt.ts';
