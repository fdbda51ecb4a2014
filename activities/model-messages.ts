import { attachmentsOf, describeAttachmentsForModel } from '../domain/attachments/metadata.ts';
import type { ModelMessage, ModelReplay, ModelToolCall } from '../adapters/models/types.ts';

type StoredMessage = { role: string; runId: string; content: Record<string, unknown> };

/** The thread transcript (stored model-neutral content) as the adapters' message list. */
export function toModelMessages(messages: readonly StoredMessage[]): ModelMessage[] {
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
