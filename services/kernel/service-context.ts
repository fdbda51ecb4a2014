import type { SQL, SQLWrapper } from 'drizzle-orm';
import type { Logger } from '../../config/logger.ts';
import type { Executor } from '../../db/client.ts';
import type { PrincipalKind } from '../../domain/principals.ts';
import type { Role } from '../../domain/scopes.ts';

/** Time source; tests inject a fixed or advancing clock. */
export type Clock = { now(): Date };
export const systemClock: Clock = { now: () => new Date() };

/** The authenticated, project-local principal a request or activity acts as. */
export type Actor = {
  principalId: string;
  organizationId: string;
  projectId: string;
  kind: PrincipalKind;
  subject: string;
  scopes: string[];
  displayName: string | null;
  organizationRole: Role | null;
  projectRole: Role | null;
  /** The API key the request authenticated with, when it did. */
  apiKeyId: string | null;
};

/**
 * What every service verb receives: the database or the current transaction, the actor (null
 * for system work such as the worker), request id, logger and clock.
 */
export type ServiceContext = {
  db: Executor;
  inTransaction: boolean;
  /** Tasks to run once the outermost transaction commits (for example, waking a reader). */
  afterCommit: Array<() => void | Promise<void>>;
  actor: Actor | null;
  requestId: string | null;
  logger: Logger;
  clock: Clock;
  /**
   * Set (outside a transaction) when the caller owns a transaction that opens only when the work
   * first asks for one: `withTransaction` joins it instead of opening its own. See
   * `deferred-transaction.ts`.
   */
  transactionScope?: TransactionScope;
  /**
   * In a transaction: what is held for its next product-event append or its last statement, sent
   * in that statement (`pending-writes.ts`).
   */
  pendingWrites?: HeldItem[];
};

/**
 * One thing a transaction holds (`pending-writes.ts`): a write (a data-modifying CTE), a NOTIFY, or,
 * for its last statement only, its events' append (CTEs, one of which the outer query must read)
 * and a check (a scalar read in that statement, handed to `check`).
 */
export type HeldItem =
  | { kind: 'write'; write: SQLWrapper & PromiseLike<unknown> }
  | { kind: 'notice'; channel: string; payload: string }
  | { kind: 'append'; ctes: SQL; read: SQL }
  | { kind: 'check'; expression: SQL; check: (value: unknown) => void };

/** How `withTransaction` opens or joins a transaction its caller owns. */
export type TransactionScope = { join<T>(fn: (tx: ServiceContext) => Promise<T>): Promise<T> };

/**
 * The context of work that acts for no principal (the worker's activities, background loops,
 * start-up steps): no actor, no request id, outside any transaction.
 */
export function systemContext(input: { db: Executor; logger: Logger; clock?: Clock }): ServiceContext {
  return { db: input.db, inTransaction: false, afterCommit: [], actor: null, requestId: null, logger: input.logger, clock: input.clock ?? systemClock };
}
