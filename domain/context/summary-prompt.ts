import { estimateTextTokens, type EstimatedMessage } from './tokens.ts';

/**
 * The summarizer's instructions (docs/decisions/context-compaction.md). It is given the previous
 * summary and the transcript that followed, and writes the one summary the model reads from then
 * on in place of both.
 */
export const SUMMARY_INSTRUCTIONS = [
  'You compact the transcript of a conversation between a user, an AI agent and its tools so that the agent can go on working from your summary alone.',
  'The earlier part of the conversation is replaced by what you write; nothing you leave out can be recovered by the agent.',
  'Write a summary that keeps, in this order:',
  '1. Facts: what the user said about their goal, constraints and preferences, and what has been established since.',
  '2. Decisions: what was decided, by whom, and why, including approaches that were rejected.',
  '3. Open tasks: what is still to be done, what the agent promised, and questions that await an answer.',
  '4. Files and resources: every file path, URL, identifier and name still relevant, exactly as written.',
  '5. Tool results still needed: the figures, outputs and errors the remaining work depends on, verbatim where short.',
  'Fold the previous summary, when there is one, into yours: keep what still matters from it and correct what the later transcript changed.',
  'Write plain text under those five headings. Be complete but brief: never longer than the text you summarize. Do not address the user; do not continue the conversation.',
].join('\n');

/** The summarizer's one user message: the previous summary, then the transcript it now covers. */
export function summaryRequestText(previousSummary: string | null, covered: readonly EstimatedMessage[]): string {
  const parts = [];
  parts.push(previousSummary === null ? '<previous_summary>none</previous_summary>' : `<previous_summary>\n${previousSummary}\n</previous_summary>`);
  parts.push(`<transcript>\n${covered.map(renderMessage).join('\n')}\n</transcript>`);
  return parts.join('\n\n');
}

function renderMessage(message: EstimatedMessage): string {
  const content = message.content;
  if (message.role === 'user') return `[user] ${String(content.text ?? '')}`;
  if (message.role === 'tool')
    return `[tool result ${String(content.toolName ?? '')}${content.isError ? ' (error)' : ''}] ${JSON.stringify(content.result ?? null)}`;
  const calls = Array.isArray(content.toolCalls) ? (content.toolCalls as Array<{ name?: unknown; argumentsText?: unknown }>) : [];
  const text = String(content.text ?? '');
  return [`[assistant]${text === '' ? '' : ` ${text}`}`, ...calls.map((call) => `[tool call ${String(call.name)}] ${String(call.argumentsText ?? '')}`)].join(
    '\n',
  );
}

/** How the model reads the summary: the first user message of its transcript. */
export function renderSummaryForModel(summary: string): string {
  return `<conversation_summary>\nThe earlier part of this conversation was compacted into this summary.\n\n${summary}\n</conversation_summary>`;
}

export type SummaryVerdict = { accepted: true; summary: string } | { accepted: false; reason: string };

/**
 * A summary is kept only when it says something and is shorter than what it replaces (the
 * previous summary and the covered transcript, as the summarizer read them).
 */
export function judgeSummary(text: string, replacedText: string): SummaryVerdict {
  const summary = text.trim();
  if (summary === '') return { accepted: false, reason: 'the summary came back empty' };
  const tokens = estimateTextTokens(summary);
  const replaced = estimateTextTokens(replacedText);
  if (tokens >= replaced)
    return { accepted: false, reason: `the summary (about ${tokens} tokens) is not shorter than what it replaces (about ${replaced} tokens)` };
  return { accepted: true, summary };
}
