import type { Database, Executor } from '../db/client.ts';
import { ConflictError } from '../domain/errors.ts';
import type { ServiceContext, TransactionScope } from './service-context.ts';

/**
 * A transaction that opens only when the work inside it first asks for one (`withTransaction`
 * on a context carrying `transactionScope`), and whose end its owner decides afterwards. The
 * idempotency executor uses it so that a verb can make network calls (file uploads) before its
 * transaction opens, while its effect and the stored response still commit together.
 *
 * `onOpen` runs first in the transaction; false means "do not go on" (the idempotency key was
 * claimed by another request): the transaction ends empty and `withTransaction` throws
 * `TransactionScopeLost`. Once open, every later `withTransaction` joins the same transaction.
 */
export type DeferredTransaction = {
  /** Put on the context given to the work: `withTransaction` opens or joins through it. */
  scope: TransactionScope;
  /** Whether the work asked for the transaction. */
  readonly opened: boolean;
  /** Whether `onOpen` declined (the work then saw `TransactionScopeLost`, however it reported it). */
  readonly declined: boolean;
  /** Opens it if the work never did (false when `onOpen` declined), so `commit` has one to use. */
  open(): Promise<boolean>;
  /** Runs `last` in the transaction and commits; then the work's after-commit tasks are due. */
  commit(last: (db: Executor) => Promise<void>): Promise<void>;
  /** Rolls back (nothing when it never opened). */
  rollBack(): Promise<void>;
  /** Tasks the work queued for after the commit. */
  afterCommit: ServiceContext['afterCommit'];
};

/**
 * Thrown into the work when `onOpen` declined. A conflict, so a route that reports it renders a
 * 4xx without logging a failure; the owner then answers for the request (a replay).
 */
export class TransactionScopeLost extends ConflictError {
  constructor() {
    super('Another request with this Idempotency-Key committed first');
  }
}

type Ending = { kind: 'commit'; last: (db: Executor) => Promise<void> } | { kind: 'roll_back' };

class RollBack extends Error {}

export function deferTransaction(ctx: ServiceContext, onOpen: (db: Executor) => Promise<boolean>): DeferredTransaction {
  const afterCommit: ServiceContext['afterCommit'] = [];
  const { transactionScope: _owned, ...outer } = ctx;
  let end!: (ending: Ending) => void;
  const ending = new Promise<Ending>((resolve) => (end = resolve));
  let opening: Promise<ServiceContext> | null = null;
  let settled: Promise<'committed' | 'rolled_back' | 'declined'> | null = null;
  let declined = false;

  const open = (): Promise<ServiceContext> => {
    opening ??= new Promise<ServiceContext>((resolveOpen, rejectOpen) => {
      settled = (ctx.db as Database)
        .transaction(async (db) => {
          if (!(await onOpen(db))) {
            declined = true;
            rejectOpen(new TransactionScopeLost());
            return 'declined' as const;
          }
          resolveOpen({ ...outer, db, inTransaction: true, afterCommit });
          const how = await ending;
          if (how.kind === 'roll_back') throw new RollBack();
          await how.last(db);
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
    get opened() {
      return opening !== null;
    },
    get declined() {
      return declined;
    },
    async open() {
      try {
        await open();
        return true;
      } catch (error) {
        if (error instanceof TransactionScopeLost) return false;
        throw error;
      }
    },
    async commit(last) {
      if (!settled) throw new Error('commit of a deferred transaction that never opened');
      end({ kind: 'commit', last });
      const outcome = await settled;
      if (outcome !== 'committed') throw new Error(`deferred transaction ended ${outcome}, not committed`);
    },
    async rollBack() {
      end({ kind: 'roll_back' });
      if (settled) await settled.catch(() => {});
    },
    afterCommit,
  };
}
