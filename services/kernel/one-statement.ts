import type { ServiceContext } from './service-context.ts';
import { runAfterCommit } from './transaction.ts';

/**
 * Runs `fn` as a transaction of one statement: every write it makes is held (`holdWrite`,
 * `holdNotice`) and its one event append sends them all. A single statement is atomic on its own,
 * so there is no BEGIN and no COMMIT: two round trips fewer. For a step whose reads came before
 * (outside any transaction, so its checks rest on what was committed when it read) and whose
 * conflicts a unique constraint turns into an error that fails the whole statement; its caller
 * then takes the locking path. `fn` must send no write but that append: a write held after it is
 * an error (thrown, never sent), and a write it sent directly would commit on its own.
 */
export async function inOneStatement<T>(ctx: ServiceContext, fn: (one: ServiceContext) => Promise<T>): Promise<T> {
  if (ctx.inTransaction || ctx.transactionScope) throw new Error('inOneStatement runs outside any transaction');
  const afterCommit: ServiceContext['afterCommit'] = [];
  const pendingWrites: NonNullable<ServiceContext['pendingWrites']> = [];
  // `inTransaction` makes the verbs inside join this "transaction" instead of opening one.
  const one: ServiceContext = { ...ctx, inTransaction: true, afterCommit, pendingWrites };
  const answer = await fn(one);
  if (pendingWrites.length > 0) throw new Error('inOneStatement: writes were held that no event append took');
  Object.freeze(pendingWrites);
  await runAfterCommit(ctx, afterCommit);
  return answer;
}
