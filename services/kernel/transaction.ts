import type { Database } from '../../db/client.ts';
import { flushPendingWrites } from './pending-writes.ts';
import type { ServiceContext } from './service-context.ts';

/**
 * Runs `fn` in a transaction, reusing the caller's when there is one (or joining the deferred
 * one its caller owns, which the caller then commits). After the outermost transaction commits,
 * the queued `afterCommit` tasks run (failures are logged, not thrown: the state change is
 * already durable).
 */
export async function withTransaction<T>(ctx: ServiceContext, fn: (tx: ServiceContext) => Promise<T>): Promise<T> {
  if (ctx.inTransaction) return fn(ctx);
  if (ctx.transactionScope) return ctx.transactionScope.join(fn);
  const afterCommit: ServiceContext['afterCommit'] = [];
  const result = await (ctx.db as Database).transaction(async (db) => {
    const tx: ServiceContext = { ...ctx, db, inTransaction: true, afterCommit, pendingWrites: [] };
    const answer = await fn(tx);
    await flushPendingWrites(tx);
    Object.freeze(tx.pendingWrites); // a write held after this point throws, rather than vanishing
    return answer;
  });
  await runAfterCommit(ctx, afterCommit);
  return result;
}

export async function runAfterCommit(ctx: ServiceContext, tasks: ServiceContext['afterCommit']): Promise<void> {
  for (const task of tasks) {
    try {
      await task();
    } catch (error) {
      ctx.logger.error('after-commit task failed', { err: error, requestId: ctx.requestId });
    }
  }
}
