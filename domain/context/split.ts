import { estimateMessagesTokens, type EstimatedMessage } from './tokens.ts';

export type SequencedMessage = EstimatedMessage & { sequence: number };

export type CompactionPlan<M extends SequencedMessage> = {
  /** What the new summary replaces (after the previous summary, if any). */
  covered: M[];
  /** What the model keeps reading verbatim after the summary. */
  kept: M[];
  /** The sequence of the last covered message. */
  throughSequence: number;
};

/**
 * Where a compaction cuts the messages after the previous summary (docs/decisions/context-compaction.md):
 * before the `keepRecentTurns`-th last user message, so those turns stay verbatim with everything
 * after them. A cut falls only before a user or an assistant message, so a tool call and its
 * result are never separated. When that keeps more than `maxKeptTokens` (one run with many tool
 * calls), or covers nothing new, the cut moves later, to the earliest boundary whose remainder
 * fits; the newest turn's start is the latest cut there is. Null when no cut covers anything.
 */
export function planCompaction<M extends SequencedMessage>(
  messages: readonly M[],
  options: { keepRecentTurns: number; maxKeptTokens: number },
): CompactionPlan<M> | null {
  const boundaries = messages.flatMap((message, index) => (index > 0 && (message.role === 'user' || message.role === 'assistant') ? [index] : []));
  if (boundaries.length === 0) return null;
  const userStarts = messages.flatMap((message, index) => (message.role === 'user' ? [index] : []));
  const preferred = userStarts.length >= options.keepRecentTurns ? userStarts[userStarts.length - options.keepRecentTurns]! : 0;
  const fits = (cut: number) => estimateMessagesTokens(messages.slice(cut)) <= options.maxKeptTokens;
  let cut = preferred > 0 && fits(preferred) ? preferred : boundaries.find((index) => index >= preferred && fits(index));
  cut ??= boundaries.at(-1)!;
  return { covered: messages.slice(0, cut), kept: messages.slice(cut), throughSequence: messages[cut - 1]!.sequence };
}

/**
 * What a compaction may keep verbatim: half the threshold (half the turn's input when the
 * threshold is unknown and the vendor answered that it overflowed), so what follows the summary
 * has room to grow before the next compaction.
 */
export function maxKeptTokens(compactAtTokens: number | null, turnTokens: number): number {
  return Math.floor((compactAtTokens ?? turnTokens) / 2);
}

/** A compaction step's key in its run: the turn, its attempt and why (`threshold` before the call, `overflow` after the vendor refused it). */
export const compactionStepKey = (turnId: string, attempt: number, reason: 'threshold' | 'overflow') => `${turnId}:${attempt}:${reason}`;

/** The turn id of a compaction's summary calls in `model_invocations` (their attempts number the parts). */
export const summaryTurnId = (stepKey: string) => `compact:${stepKey}`;
