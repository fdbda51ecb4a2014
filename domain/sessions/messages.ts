import { attachmentsOf, type AttachmentMetadata } from '../attachments/metadata.ts';

/**
 * Transcript messages: the stored, model-neutral content (what the runtime writes) and its
 * public, redacted view (what the API returns). The runtime stores what the model needs —
 * tool arguments and results included — so the public view is built field by field and never
 * passes stored content through.
 */

export type MessageRole = 'user' | 'assistant' | 'tool';
export const MESSAGE_ROLES: readonly MessageRole[] = ['user', 'assistant', 'tool'];

/** Stored `messages.content` per role (the activities' ModelMessage without `role`). */
export type StoredUserContent = { text: string };
export type StoredAssistantContent = { text: string; toolCalls?: Array<{ id: string; name: string; arguments?: unknown; argumentsText?: string }> };
export type StoredToolContent = { toolCallId: string; toolName: string; result?: unknown; isError?: boolean };

/** A tool call as the public sees it: which tool was asked for, never the arguments. */
export type PublicToolCallSummary = { toolCallId: string; toolName: string };
/** A tool result as the public sees it: which call it answers and whether it failed, never the value. */
export type PublicToolResultSummary = { toolCallId: string; toolName: string; isError: boolean };

/**
 * The public content of one message. `text` is the user's text or the assistant's final reply;
 * it is null for assistant turns that call tools (intermediate output) and for tool results.
 */
export type PublicMessageContent = {
  text: string | null;
  toolCalls: PublicToolCallSummary[];
  toolResult: PublicToolResultSummary | null;
  /** Files attached to a user message: safe metadata only. */
  attachments: AttachmentMetadata[];
};

const asString = (value: unknown): string | null => (typeof value === 'string' ? value : null);

function toolCallsOf(content: Record<string, unknown>): PublicToolCallSummary[] {
  const calls = Array.isArray(content.toolCalls) ? content.toolCalls : [];
  return calls.flatMap((call: unknown) => {
    if (typeof call !== 'object' || call === null) return [];
    const { id, name } = call as Record<string, unknown>;
    return [{ toolCallId: asString(id) ?? '', toolName: asString(name) ?? '' }];
  });
}

/** Redacts stored content to its public view (see `PublicMessageContent`). */
export function toPublicMessageContent(role: MessageRole, content: Record<string, unknown>): PublicMessageContent {
  switch (role) {
    case 'user':
      return { text: asString(content.text), toolCalls: [], toolResult: null, attachments: attachmentsOf(content) };
    case 'assistant': {
      const toolCalls = toolCallsOf(content);
      return { text: toolCalls.length === 0 ? asString(content.text) : null, toolCalls, toolResult: null, attachments: [] };
    }
    case 'tool':
      return {
        text: null,
        toolCalls: [],
        toolResult: { toolCallId: asString(content.toolCallId) ?? '', toolName: asString(content.toolName) ?? '', isError: content.isError === true },
        attachments: [],
      };
  }
}

/**
 * The `message` object stored with `message.created` for consumers that opted in to message
 * content (spec 3 webhook rule 7): user messages and the assistant's final reply only, as text.
 * Null for everything else — tool calls, tool results and reasoning never travel in events.
 */
export function eventMessageOf(message: { id: string; runId: string; role: MessageRole; content: Record<string, unknown> }): Record<string, unknown> | null {
  const view = toPublicMessageContent(message.role, message.content);
  if (message.role === 'tool' || view.text === null) return null;
  return { id: message.id, runId: message.runId, role: message.role, content: { text: view.text } };
}
