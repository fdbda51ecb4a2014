import type { SQLWrapper } from 'drizzle-orm';
import type { Database, Executor } from '../../db/client.ts';
import { flushPendingWrites } from './pending-writes.ts';
import type { ServiceContext, TransactionScope } from './service-context.ts';

/**
 * A transaction that opens only when the work inside it first asks for one (`withTransaction`
 * on a context carrying `transactionScope`), and whose end its owner decides afterwards. The
 * idempotency executor uses it so that a verb can make network calls (file uploads) before its
 * transaction opens, while its effect and the stored response still commit together. Once open,
 * every later `withTransaction` joins the same transaction.
 */
export type DeferredTransaction = {
  /** Put on the context given to the work: `withTransaction` opens or joins through it. */
  scope: TransactionScope;
  /**
   * Sends `last` (a data-modifying statement built on the transaction's executor) in the
   * transaction's last statement, with the writes the work held (opening it if the work never
   * did), and commits when it returned one row; otherwise rolls back. Returns whether it
   * committed; then the work's after-commit tasks are due.
   */
  commit(last: (db: Executor) => SQLWrapper): Promise<boolean>;
  /** Rolls back (nothing when it never opened). */
  rollBack(): Promise<void>;
  /** Tasks the work queued for after the commit. */
  afterCommit: ServiceContext['afterCommit'];
};

type Ending = { kind: 'commit'; last: (db: Executor) => SQLWrapper } | { kind: 'roll_back' };

class RollBack extends Error {}

export function deferTransaction(ctx: ServiceContext): DeferredTransaction {
  const afterCommit: ServiceContext['afterCommit'] = [];
  const { transactionScope: _owned, ...outer } = ctx;
  let end!: (ending: Ending) => void;
  const ending = new Promise<Ending>((resolve) => (end = resolve));
  let opening: Promise<ServiceContext> | null = null;
  let settled: Promise<'committed' | 'rolled_back'> | null = null;

  const open = (): Promise<ServiceContext> => {
    opening ??= new Promise<ServiceContext>((resolveOpen, rejectOpen) => {
      settled = (ctx.db as Database)
        .transaction(async (db) => {
          const tx: ServiceContext = { ...outer, db, inTransaction: true, afterCommit, pendingWrites: [] };
          resolveOpen(tx);
          const how = await ending;
          if (how.kind === 'roll_back') throw new RollBack();
          const claimed = await flushPendingWrites(tx, how.last(db));
          Object.freeze(tx.pendingWrites); // a write held after this point throws, rather than vanishing
          if (claimed !== 1) throw new RollBack();
          return 'committed' as const;
        })
        .catch((error: unknown) => {
          if (error instanceof RollBack) return 'rolled_back' as const;
          rejectOpen(error);
          throw error;
        });
      // Observed by commit/rollBack; marked handled so a failed BEGIN is not reported twice.
      settled.catch(() => {});
    });
    return opening;
  };

  return {
    scope: { join: async (fn) => fn(await open()) },
    async commit(last) {
      await open();
      end({ kind: 'commit', last });
      return (await settled!) === 'committed';
    },
    async rollBack() {
      end({ kind: 'roll_back' });
      if (settled) await settled.catch(() => {});
    },
    afterCommit,
  };
}
