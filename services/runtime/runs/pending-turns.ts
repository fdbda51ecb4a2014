import { and, asc, eq } from 'drizzle-orm';
import type * as v from 'valibot';
import type { Executor } from '../../../db/client.ts';
import { pendingTurns } from '../../../db/schema/index.ts';
import type { PendingTurnShape } from '../../../domain/public-shapes/sessions.ts';
import { attachmentMetadataOf, type StoredAttachment } from '../attachments/index.ts';

export type PendingTurnRow = typeof pendingTurns.$inferSelect;
export type PublicPendingTurn = v.InferOutput<typeof PendingTurnShape>;

/** The public shape; `position` is the 1-based place among the session's pending turns. */
export const toPendingTurnResponse = (row: PendingTurnRow, position: number): PublicPendingTurn => ({
  id: row.id,
  sessionId: row.sessionId,
  position,
  ifBusy: row.ifBusy,
  message: row.message,
  attachments: storedAttachmentsOf(row).map(attachmentMetadataOf),
  createdAt: row.createdAt.toISOString(),
});

/** The files a pending turn carries, confirmed when it was accepted. */
export const storedAttachmentsOf = (row: PendingTurnRow): StoredAttachment[] => row.attachments as unknown as StoredAttachment[];

/** A session's pending turns, oldest first (the order they become runs in). */
export async function readPendingTurns(db: Executor, sessionId: string, options: { forUpdate?: boolean } = {}): Promise<PendingTurnRow[]> {
  const query = db
    .select()
    .from(pendingTurns)
    .where(and(eq(pendingTurns.sessionId, sessionId), eq(pendingTurns.state, 'pending')))
    .orderBy(asc(pendingTurns.sequence));
  return options.forUpdate ? query.for('update') : query;
}

/** `pendingTurns` of the session detail. */
export async function listPendingTurns(db: Executor, sessionId: string): Promise<PublicPendingTurn[]> {
  return (await readPendingTurns(db, sessionId)).map((row, index) => toPendingTurnResponse(row, index + 1));
}
