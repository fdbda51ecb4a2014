import { attachmentsOf, describeAttachmentsForModel } from '../domain/attachments/metadata.ts';
import { TOOL_CANCELLED } from '../domain/tool-calls/failures.ts';
import type { ModelMessage, ModelReplay, ModelToolCall } from '../adapters/models/types.ts';

type StoredMessage = { role: string; runId: string; content: Record<string, unknown> };

/** What the model reads for a tool call whose run ended before it finished. */
const UNFINISHED_TOOL_RESULT = { code: TOOL_CANCELLED, message: 'The run ended before the tool call finished' };

/**
 * The thread transcript (stored model-neutral content) as the adapters' message list. A tool
 * call left without a result (its run was cancelled or interrupted while it waited, possibly
 * before a fork) gets a `tool_cancelled` result right after the results its turn did get: every
 * vendor refuses a call with no answer, and the model should know it never ran to the end.
 */
export function toModelMessages(messages: readonly StoredMessage[]): ModelMessage[] {
  const out: ModelMessage[] = [];
  let open: ModelToolCall[] = [];
  const closeOpen = () => {
    for (const call of open) out.push({ role: 'tool', toolCallId: call.id, toolName: call.name, result: UNFINISHED_TOOL_RESULT, isError: true });
    open = [];
  };
  for (const message of toStoredModelMessages(messages)) {
    if (message.role === 'tool') open = open.filter((call) => call.id !== message.toolCallId);
    else closeOpen();
    out.push(message);
    if (message.role === 'assistant') open = [...message.toolCalls];
  }
  // Calls of the last turn stay open: the run that made them is still waiting for them (a model
  // call never follows them unanswered).
  return out;
}

function toStoredModelMessages(messages: readonly StoredMessage[]): ModelMessage[] {
  return messages.map((message) => {
    const content = message.content;
    switch (message.role) {
      case 'user':
        // Attached files are in the workspace; the model reads their paths, never their bytes.
        return { role: 'user', text: String(content.text ?? '') + describeAttachmentsForModel(message.runId, attachmentsOf(content)) };
      case 'assistant':
        return {
          role: 'assistant',
          text: String(content.text ?? ''),
          toolCalls: (content.toolCalls as ModelToolCall[] | undefined) ?? [],
          // Signed reasoning the vendor needs back (adapters use it only for the same model).
          replay: (content.replay as ModelReplay | null | undefined) ?? null,
        };
      case 'tool':
        return {
          role: 'tool',
          toolCallId: String(content.toolCallId),
          toolName: String(content.toolName),
          result: content.result,
          isError: Boolean(content.isError),
        };
      default:
        throw new Error(`unknown message role ${message.role}`);
    }
  });
}
