import type { Message } from '@a2a-js/sdk';

/**
 * What a caller's A2A message asks (docs/decisions/a2a-door.md): its text parts are the turn's
 * text; a data part `{"approval": …}` decides an approval and `{"toolResult": …}` answers a caller
 * tool of an input-required task. File parts (`raw`, `url`) are refused: a turn takes text here.
 */
export type Answer =
  | { kind: 'approval'; approvalId: string | null; decision: 'approve' | 'deny'; note: string | null }
  | { kind: 'toolResult'; toolCallId: string; value: unknown; error: string | null };

export type CallerMessage = { text: string; answers: Answer[] };

export class MessageProblem extends Error {
  readonly kind: 'malformed' | 'content_type';
  constructor(message: string, kind: 'malformed' | 'content_type') {
    super(message);
    this.kind = kind;
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export function readCallerMessage(message: Message | undefined): CallerMessage {
  if (!message) throw new MessageProblem('message: required', 'malformed');
  if (message.parts.length === 0) throw new MessageProblem('message.parts: give at least one part', 'malformed');
  const texts: string[] = [];
  const answers: Answer[] = [];
  message.parts.forEach((part, index) => {
    const at = `message.parts.${index}`;
    const content = part.content;
    if (!content) throw new MessageProblem(`${at}: a part needs text, data, raw or url`, 'malformed');
    if (content.$case === 'text') texts.push(content.value);
    else if (content.$case === 'data') answers.push(answerOf(content.value, at));
    else throw new MessageProblem(`${at}: file parts are not supported by this server; send text`, 'content_type');
  });
  return { text: texts.join('\n'), answers };
}

function answerOf(value: unknown, at: string): Answer {
  if (isRecord(value) && isRecord(value.approval)) {
    const { approvalId, decision, note } = value.approval;
    if (decision !== 'approve' && decision !== 'deny') throw new MessageProblem(`${at}.data.approval.decision: must be "approve" or "deny"`, 'malformed');
    if (approvalId !== undefined && typeof approvalId !== 'string') throw new MessageProblem(`${at}.data.approval.approvalId: must be a string`, 'malformed');
    if (note !== undefined && typeof note !== 'string') throw new MessageProblem(`${at}.data.approval.note: must be a string`, 'malformed');
    return { kind: 'approval', approvalId: approvalId ?? null, decision, note: note ?? null };
  }
  if (isRecord(value) && isRecord(value.toolResult)) {
    const { toolCallId, error } = value.toolResult;
    if (typeof toolCallId !== 'string') throw new MessageProblem(`${at}.data.toolResult.toolCallId: must be a string`, 'malformed');
    if (error !== undefined && typeof error !== 'string') throw new MessageProblem(`${at}.data.toolResult.error: must be a string`, 'malformed');
    if (error === undefined && !('value' in value.toolResult)) throw new MessageProblem(`${at}.data.toolResult: give "value" (or "error")`, 'malformed');
    return { kind: 'toolResult', toolCallId, value: value.toolResult.value ?? null, error: error ?? null };
  }
  throw new MessageProblem(`${at}.data: must be {"approval": {...}} or {"toolResult": {...}}`, 'malformed');
}
