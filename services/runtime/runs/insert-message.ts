import { eq, sql } from 'drizzle-orm';
import { messages, threads } from '../../../db/schema/index.ts';
import { EVENT_KINDS } from '../../../domain/runs/events.ts';
import { eventMessageOf, type MessageRole } from '../../../domain/sessions/messages.ts';
import { holdWrite } from '../../kernel/pending-writes.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import type { ProductEventDraft } from '../../kernel/events/index.ts';
import type { MessageRow } from './public.ts';

/**
 * Inserts a thread message at the thread's next sequence. The counter update takes the thread
 * row's lock until the transaction ends, so sequences are gap-free and in commit order per
 * thread. Callers run inside a transaction and check step idempotency themselves.
 */
export async function insertThreadMessage(
  tx: ServiceContext,
  input: {
    organizationId: string;
    projectId: string;
    threadId: string;
    runId: string;
    stepKey: string;
    role: MessageRole;
    content: Record<string, unknown>;
    at?: Date;
    /** A sequence the thread already allocated to this message (a new thread created with it). */
    reservedSequence?: number;
    /** The message's id, when its writer chooses it (a held insert needs one). */
    id?: string;
    /**
     * The row is built here and its insert held for the transaction's next event append
     * (`holdWrite`): for writers that append the message's event next and read nothing of it
     * before. Needs `id`.
     */
    held?: boolean;
    /**
     * The vendor's count of the model's reading of the thread through this message (an assistant
     * reply: its request's input plus the reply), kept on the thread in the same statement as the
     * sequence (docs/decisions/context-compaction.md).
     */
    contextTokens?: number;
  },
): Promise<MessageRow> {
  if (input.held && !input.id) throw new Error('a held message insert needs its id');
  const [thread] =
    input.reservedSequence !== undefined
      ? [{ sequence: input.reservedSequence }]
      : await tx.db
          .update(threads)
          .set({
            lastMessageSequence: sql`${threads.lastMessageSequence} + 1`,
            ...(input.contextTokens === undefined
              ? {}
              : { contextTokens: input.contextTokens, contextThroughSequence: sql`${threads.lastMessageSequence} + 1` }),
          })
          .where(eq(threads.id, input.threadId))
          .returning({ sequence: threads.lastMessageSequence });
  if (!thread) throw new Error(`thread ${input.threadId} does not exist`);
  const row = {
    ...(input.id ? { id: input.id } : {}),
    organizationId: input.organizationId,
    projectId: input.projectId,
    threadId: input.threadId,
    runId: input.runId,
    sequence: thread.sequence,
    role: input.role,
    content: input.content,
    stepKey: input.stepKey,
    createdAt: input.at ?? tx.clock.now(),
  };
  if (input.held) {
    await holdWrite(tx, tx.db.insert(messages).values(row));
    return { ...row, id: input.id! };
  }
  const [message] = await tx.db.insert(messages).values(row).returning();
  return message!;
}

/**
 * `message.created`: ids, role and sequence in the public payload — never text. The opt-in
 * `message` object carries user text and the assistant's final reply only.
 */
export function messageCreatedEvent(message: MessageRow, sessionId: string): ProductEventDraft {
  return {
    aggregateType: 'message',
    aggregateId: message.id,
    kind: EVENT_KINDS.messageCreated,
    publicPayload: { messageId: message.id, sessionId, runId: message.runId, threadId: message.threadId, role: message.role, sequence: message.sequence },
    message: eventMessageOf(message),
  };
}
