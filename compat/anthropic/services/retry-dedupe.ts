import { IdempotencyConflictError } from '../../../domain/errors.ts';
import { isWithinReplayWindow } from '../../../domain/idempotency.ts';
import { isTransientConflict } from '../../../services/kernel/database-errors.ts';
import {
  claimIdempotencyKey,
  completeIdempotencyRecord,
  findIdempotencyRecord,
  forgetIdempotencyRecord,
  type IdempotencyScope,
} from '../../../services/kernel/idempotency/index.ts';
import { requireActor } from '../../../services/kernel/require-actor.ts';
import type { ServiceContext } from '../../../services/kernel/service-context.ts';
import { withTransaction } from '../../../services/kernel/transaction.ts';

/**
 * Dedupe of the Anthropic SDK's automatic retries (it sends no idempotency key; docs/decisions/anthropic-compat-retry-dedupe.md). Each mutation's answer is stored in the core's idempotency records,
 * in the transaction of the mutation, under the key `sdk-retry:<request hash>` of its route and
 * principal. A retry (`x-stainless-retry-count` ≥ 1) of a request whose first attempt committed
 * gets that answer again; a first attempt always runs (it replaces an older answer to the same
 * request), so a client sending the same thing twice on purpose is never swallowed. A caller's
 * own `Idempotency-Key` is used instead of the hash when given; reused with another request it is
 * a `409 idempotency_conflict`, as on the native API, and nothing runs. The transaction runs again (up to
 * three times) when PostgreSQL ends it to break a deadlock: nothing of it was written.
 */
export type Dedupe = { route: string; requestHash: string; attempt: number; idempotencyKey: string | null };

export type DedupedAnswer<T> = { replayed: false; body: T } | { replayed: true; bodyText: string };

export async function runDeduped<T>({
  ctx,
  input,
  run,
}: {
  ctx: ServiceContext;
  input: Dedupe;
  run: (tx: ServiceContext) => Promise<T>;
}): Promise<DedupedAnswer<T>> {
  const actor = requireActor(ctx);
  const scope: IdempotencyScope = {
    principalId: actor.principalId,
    route: `CMA ${input.route}`,
    idempotencyKey: input.idempotencyKey ?? `sdk-retry:${input.requestHash}`,
  };
  const replayable = input.idempotencyKey !== null || input.attempt > 0;
  /** The committed answer under this key, or null; the key's answer to another request is the core's 409 (the SDK is told not to retry it). */
  const stored = async () => {
    const record = await findIdempotencyRecord(ctx.db, scope);
    if (!record || record.status === 0 || !isWithinReplayWindow(record.createdAt, ctx.clock.now())) return null;
    if (record.requestHash !== input.requestHash) throw new IdempotencyConflictError();
    return record;
  };
  if (replayable) {
    const earlier = await stored();
    if (earlier) return { replayed: true, bodyText: earlier.bodyText ?? 'null' };
  }
  for (let attempt = 1; ; attempt++) {
    try {
      const outcome = await withTransaction(ctx, async (tx) => {
        const now = tx.clock.now();
        // A first attempt is a new request: an older answer to the same body is not its answer.
        if (!replayable) await forgetIdempotencyRecord(tx.db, scope);
        const claimed = await claimIdempotencyKey(tx.db, {
          ...scope,
          organizationId: actor.organizationId,
          projectId: actor.projectId,
          requestHash: input.requestHash,
          now,
        });
        if (!claimed) return null; // the first attempt committed while this one waited
        const body = await run(tx);
        await completeIdempotencyRecord(tx.db, scope, { status: 200, body, headers: { 'content-type': 'application/json' } });
        return { body };
      });
      if (outcome) return { replayed: false, body: outcome.body };
      const winner = await stored();
      if (winner) return { replayed: true, bodyText: winner.bodyText ?? 'null' };
      throw new Error('a request claimed by another attempt left no answer');
    } catch (error) {
      if (attempt >= 3 || !isTransientConflict(error)) throw error;
      ctx.logger.warn('a request met a concurrent transaction and runs again', { attempt, requestId: ctx.requestId });
    }
  }
}
