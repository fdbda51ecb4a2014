/**
 * The runtime's token estimate (docs/decisions/context-compaction.md): a quarter of the length of
 * what is sent, as JSON, plus a few tokens per message for the vendor's framing. Vendors count
 * 3-4 characters of English per token, so this errs high for prose and low for dense code; it is
 * only ever added to the vendor's own count of the previous turn (`contextTokens`), so its error
 * is bounded by what was appended since, and an underestimate is caught by the vendor's overflow
 * answer (the runtime compacts then).
 */
export const CHARS_PER_TOKEN = 4;
export const TOKENS_PER_MESSAGE = 4;

/** A stored transcript message as the estimate reads it. */
export type EstimatedMessage = { role: string; content: Record<string, unknown> };

export function estimateTextTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

export function estimateMessageTokens(message: EstimatedMessage): number {
  return TOKENS_PER_MESSAGE + estimateTextTokens(JSON.stringify(message.content));
}

export function estimateMessagesTokens(messages: readonly EstimatedMessage[]): number {
  let total = 0;
  for (const message of messages) total += estimateMessageTokens(message);
  return total;
}

/** The fixed part of every request of a run: its instructions and the tools offered. */
export function estimatePrefixTokens(systemPrompt: string, tools: readonly unknown[]): number {
  return estimateTextTokens(systemPrompt) + (tools.length === 0 ? 0 : estimateTextTokens(JSON.stringify(tools)));
}

/**
 * A turn's input: the vendor's count of the last request that started from the same summary
 * (its input plus the reply it wrote, both now in the transcript) and the estimate of every
 * message appended after that reply; with no such count, the estimate of the whole request.
 */
export function contextTokens(input: {
  counted: { tokens: number; throughSequence: number } | null;
  prefixTokens: number;
  summaryTokens: number;
  messages: ReadonlyArray<EstimatedMessage & { sequence: number }>;
}): number {
  const { counted } = input;
  if (counted) return counted.tokens + estimateMessagesTokens(input.messages.filter((message) => message.sequence > counted.throughSequence));
  return input.prefixTokens + input.summaryTokens + estimateMessagesTokens(input.messages);
}
