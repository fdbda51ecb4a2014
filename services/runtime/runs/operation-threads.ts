import { and, asc, eq, gt } from 'drizzle-orm';
import type { Executor } from '../../../db/client.ts';
import { harnessOperationCalls, messages } from '../../../db/schema/index.ts';
import { operationCallOfTurn } from '../../../domain/runs/harness-operations.ts';
import type { MessageRow } from './public.ts';

export type HarnessOperationCallRow = typeof harnessOperationCalls.$inferSelect;

export async function findOperationCall(db: Executor, toolCallId: string): Promise<HarnessOperationCallRow | null> {
  const [row] = await db.select().from(harnessOperationCalls).where(eq(harnessOperationCalls.toolCallId, toolCallId));
  return row ?? null;
}

/** The thread a turn writes to: its operation's thread for a sub-loop turn, else undefined (the session's). */
export async function threadOfTurn(db: Executor, turnId: string): Promise<string | undefined> {
  const toolCallId = operationCallOfTurn(turnId);
  if (!toolCallId) return undefined;
  const call = await findOperationCall(db, toolCallId);
  if (!call) throw new Error(`operation call ${toolCallId} was never started`);
  return call.threadId;
}

/** An operation thread's messages in order: the sub-loop's transcript. */
export async function operationTranscript(db: Executor, threadId: string, afterSequence = 0): Promise<MessageRow[]> {
  return db
    .select()
    .from(messages)
    .where(and(eq(messages.threadId, threadId), gt(messages.sequence, afterSequence)))
    .orderBy(asc(messages.sequence));
}
