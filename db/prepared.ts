import type { Executor } from './client.ts';

const cache = new WeakMap<object, Map<string, unknown>>();

/**
 * A prepared statement built once per database handle and reused. Hot queries (authentication,
 * idempotent replay, the event tail) use it: drizzle otherwise rebuilds the SQL on every call,
 * which costs as much as the round trip itself. Build the query with `sql.placeholder(...)`
 * values and call `.prepare(name)`; names must be unique per query.
 */
export function prepared<T>(db: Executor, name: string, build: (db: Executor) => T): T {
  let statements = cache.get(db);
  if (!statements) {
    statements = new Map();
    cache.set(db, statements);
  }
  let statement = statements.get(name) as T | undefined;
  if (!statement) {
    statement = build(db);
    statements.set(name, statement);
  }
  return statement;
}
