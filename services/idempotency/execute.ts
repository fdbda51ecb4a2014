import { IdempotencyConflictError } from '../../domain/errors.ts';
import { isWithinReplayWindow } from '../../domain/idempotency.ts';
import type { ServiceContext } from '../service-context.ts';
import { deferTransaction, TransactionScopeLost } from '../deferred-transaction.ts';
import { runAfterCommit } from '../transaction.ts';
import {
  claimIdempotencyKey,
  completeIdempotencyRecord,
  findIdempotencyRecord,
  type IdempotencyScope,
  type StoredResponse,
} from './records.ts';

export type ResponseToStore = { status: number; body: unknown; headers: Record<string, string> };

export type IdempotentOutcome =
  | { kind: 'executed' }
  | { kind: 'rejected' }
  | { kind: 'replay'; record: StoredResponse };

/**
 * Runs a mutation at most once per idempotency scope (spec 2 common rule 2).
 *
 * The effect (`run`) and its stored response commit in one transaction, so a crash never leaves
 * one without the other. By default `run` gets a context bound to that transaction. With
 * `transaction: 'when_asked'` it gets a context outside any transaction whose `withTransaction`
 * opens (and claims the key in) the shared transaction on first use: work before that, such as
 * uploading a turn's files, holds no transaction open. A concurrent request with the same key
 * blocks on the record's primary key until the first commits, then replays. `run` returns null to
 * reject: the transaction rolls back and nothing is stored, so the key stays usable. A record
 * from the same scope with another request hash is an idempotency conflict.
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

  const existing = await findIdempotencyRecord(ctx.db, input.scope);
  if (existing && isWithinReplayWindow(existing.createdAt, now)) return replayOf(existing);

  const transaction = deferTransaction(ctx, (db) =>
    claimIdempotencyKey(db, { ...input.scope, organizationId: actor.organizationId, projectId: actor.projectId, requestHash: input.requestHash, now }),
  );
  const claimed = input.transaction === 'when_asked' ? true : await transaction.open();
  let response: ResponseToStore | null = null;
  if (claimed) {
    try {
      response = input.transaction === 'when_asked' ? await run({ ...ctx, transactionScope: transaction.scope }) : await transaction.scope.join(run);
    } catch (error) {
      await transaction.rollBack();
      if (error instanceof TransactionScopeLost) return replayWinner();
      throw error;
    }
  }
  // The work may report a lost claim as its own error response (an HTTP route does).
  if (!response || transaction.declined) {
    await transaction.rollBack();
    return claimed && !transaction.declined ? { kind: 'rejected' } : replayWinner();
  }
  if (!transaction.opened && !(await transaction.open())) return replayWinner();
  await transaction.commit((db) => completeIdempotencyRecord(db, input.scope, response));
  await runAfterCommit(ctx, transaction.afterCommit);
  return { kind: 'executed' };

  // Another request with this key committed while we waited on its record.
  async function replayWinner(): Promise<IdempotentOutcome> {
    const winner = await findIdempotencyRecord(ctx.db, input.scope);
    if (!winner) throw new Error('idempotency record vanished after a conflicting claim');
    return replayOf(winner);
  }
}
