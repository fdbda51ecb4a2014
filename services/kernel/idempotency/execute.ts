import { isWithinReplayWindow } from '../../../domain/idempotency.ts';
import { IdempotencyConflictError } from '../../../domain/errors.ts';
import type { ServiceContext } from '../service-context.ts';
import { deferTransaction } from '../deferred-transaction.ts';
import { runAfterCommit } from '../transaction.ts';
import { claimIdempotencyKeyStatement, findIdempotencyRecord, type IdempotencyScope, type StoredResponse } from './records.ts';

export type ResponseToStore = { status: number; body: unknown; headers: Record<string, string> };

export type IdempotentOutcome = { kind: 'executed' } | { kind: 'rejected' } | { kind: 'replay'; record: StoredResponse };

/**
 * Runs a mutation at most once per idempotency scope (spec 2 common rule 2).
 *
 * The effect (`run`) and its stored response commit in one transaction, so a crash never leaves
 * one without the other: the record is written last, with the response, in one statement. By
 * default `run` gets a context bound to that transaction. With `transaction: 'when_asked'` it
 * gets a context outside any transaction whose `withTransaction` opens (or joins) the shared
 * transaction on first use: work before that, such as uploading a turn's files, holds no
 * transaction open. A concurrent request with the same key does its work, then blocks on the
 * record's primary key until the first ends: when that one committed, this one rolls back and
 * replays its answer; when this one's work failed or was refused because of what the first did
 * (a name it took), it replays that answer too. `run` returns null to reject: the transaction
 * rolls back and nothing is stored, so the key stays usable. A record from the same scope with
 * another request hash is an idempotency conflict.
 */
export async function executeIdempotently({
  ctx,
  input,
  run,
}: {
  ctx: ServiceContext;
  input: { scope: IdempotencyScope; requestHash: string; transaction?: 'before_run' | 'when_asked' };
  run: (ctx: ServiceContext) => Promise<ResponseToStore | null>;
}): Promise<IdempotentOutcome> {
  const actor = ctx.actor;
  if (!actor) throw new Error('executeIdempotently needs an actor');
  const now = ctx.clock.now();
  const replayOf = (record: StoredResponse): IdempotentOutcome => {
    if (record.requestHash !== input.requestHash) throw new IdempotencyConflictError();
    return { kind: 'replay', record };
  };
  /** A record another request with this key committed, within the replay window. */
  const committedByAnother = async () => {
    const record = await findIdempotencyRecord(ctx.db, input.scope);
    return record && isWithinReplayWindow(record.createdAt, now) ? record : null;
  };
  /** After this request's own failure or refusal: what to answer instead, if anything (a failed look answers nothing). */
  const replayAfterFailure = async () => {
    const winner = await committedByAnother().catch(() => null);
    return winner ? replayOf(winner) : null;
  };

  const existing = await findIdempotencyRecord(ctx.db, input.scope);
  if (existing && isWithinReplayWindow(existing.createdAt, now)) return replayOf(existing);

  const transaction = deferTransaction(ctx);
  let response: ResponseToStore | null;
  try {
    response = input.transaction === 'when_asked' ? await run({ ...ctx, transactionScope: transaction.scope }) : await transaction.scope.join(run);
  } catch (error) {
    await transaction.rollBack();
    // The request's own error stands unless another request with this key committed meanwhile.
    const replay = await replayAfterFailure();
    if (replay) return replay;
    throw error;
  }
  if (!response) {
    await transaction.rollBack();
    return (await replayAfterFailure()) ?? { kind: 'rejected' };
  }
  const stored = response;
  const committed = await transaction.commit((db) =>
    claimIdempotencyKeyStatement(db, {
      ...input.scope,
      organizationId: actor.organizationId,
      projectId: actor.projectId,
      requestHash: input.requestHash,
      now,
      response: stored,
    }),
  );
  if (!committed) {
    const winner = await committedByAnother();
    if (!winner) throw new Error('idempotency record vanished after a conflicting claim');
    return replayOf(winner);
  }
  await runAfterCommit(ctx, transaction.afterCommit);
  return { kind: 'executed' };
}
