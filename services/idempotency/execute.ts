import type { Database } from '../../db/client.ts';
import { IdempotencyConflictError } from '../../domain/errors.ts';
import { isWithinReplayWindow } from '../../domain/idempotency.ts';
import type { ServiceContext } from '../service-context.ts';
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
 * The effect (`run`, given a context bound to the transaction) and its stored response commit in
 * one transaction, so a crash never leaves one without the other. A concurrent request with the
 * same key blocks on the record's primary key until the first commits, then replays. `run`
 * returns null to reject: the transaction rolls back and nothing is stored, so the key stays
 * usable. A record from the same scope with another request hash is an idempotency conflict.
 */
export async function executeIdempotently(
  ctx: ServiceContext,
  input: { scope: IdempotencyScope; requestHash: string },
  run: (tx: ServiceContext) => Promise<ResponseToStore | null>,
): Promise<IdempotentOutcome> {
  const actor = ctx.actor;
  if (!actor) throw new Error('executeIdempotently needs an actor');
  const now = ctx.clock.now();
  const replayOf = (record: StoredResponse): IdempotentOutcome => {
    if (record.requestHash !== input.requestHash) throw new IdempotencyConflictError();
    return { kind: 'replay', record };
  };

  const existing = await findIdempotencyRecord(ctx.db, input.scope);
  if (existing && isWithinReplayWindow(existing.createdAt, now)) return replayOf(existing);

  const afterCommit: ServiceContext['afterCommit'] = [];
  const outcome = await (ctx.db as Database)
    .transaction(async (db) => {
      const claimed = await claimIdempotencyKey(db, { ...input.scope, organizationId: actor.organizationId, projectId: actor.projectId, requestHash: input.requestHash, now });
      if (!claimed) return 'lost' as const;
      const response = await run({ ...ctx, db, inTransaction: true, afterCommit });
      if (!response) throw new Rejected();
      await completeIdempotencyRecord(db, input.scope, response);
      return 'executed' as const;
    })
    .catch((error: unknown) => {
      if (error instanceof Rejected) return 'rejected' as const;
      throw error;
    });

  if (outcome === 'executed') {
    await runAfterCommit(ctx, afterCommit);
    return { kind: 'executed' };
  }
  if (outcome === 'rejected') return { kind: 'rejected' };
  // Another request with this key committed while we waited on its record.
  const winner = await findIdempotencyRecord(ctx.db, input.scope);
  if (!winner) throw new Error('idempotency record vanished after a conflicting claim');
  return replayOf(winner);
}

class Rejected extends Error {}
