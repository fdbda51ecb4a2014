import * as fs from 'node:fs';
import * as path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { ExtractTablesWithRelations } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import * as schema from './schema/index.ts';

export type Schema = typeof schema;
export type Database = PgDatabase<PgQueryResultHKT, Schema>;
export type Transaction = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
/** Either the database or an open transaction: what every query helper accepts. */
export type Executor = Database | Transaction;

export type NotificationHandler = (payload: string) => void;

/**
 * One handle over either driver: postgres.js against a server, or embedded PGlite. Both share
 * one drizzle schema and one migration history; `listen` gives LISTEN/NOTIFY on either.
 */
export type DatabaseHandle = {
  db: Database;
  driver: 'postgres' | 'pglite';
  listen(channel: string, handler: NotificationHandler): Promise<() => Promise<void>>;
  /**
   * Sends a NOTIFY outside any transaction, in call order: on a PostgreSQL server over one
   * connection of its own (so a busy pool never delays it and order holds), on PGlite through the
   * embedded instance.
   */
  notify(channel: string, payload: string): Promise<void>;
  /**
   * Runs `fn` while this process holds the server-wide advisory lock `key`, so start-up steps
   * (migrations, the installation's first rows) run one process at a time when several API and
   * worker processes start together. PGlite has one process: `fn` just runs.
   */
  exclusively<T>(key: number, fn: () => Promise<T>): Promise<T>;
  /** The pool's size and the transactions holding one of its connections now (for metrics). */
  poolStats(): PoolStats;
  close(): Promise<void>;
};

export type PoolStats = { size: number; transactionsOpen: number };

/**
 * Counts the transactions open on a client: `method` (postgres.js `begin`, PGlite `transaction`)
 * holds a connection from its call until its promise settles.
 */
function countingTransactions<T extends object>(client: T, method: 'begin' | 'transaction', open: { count: number }): T {
  return new Proxy(client, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown;
      if (typeof value !== 'function') return value;
      // Methods run on the client itself: PGlite's read private fields, which a proxy has not.
      if (key !== method) return (value as (...rest: unknown[]) => unknown).bind(target);
      return (...args: unknown[]) => {
        open.count += 1;
        return Promise.resolve((value as (...rest: unknown[]) => unknown).apply(target, args)).finally(() => {
          open.count -= 1;
        });
      };
    },
  });
}

/** Advisory lock keys of the start-up steps. */
export const LOCKS = { migrations: 7_240_001, installation: 7_240_002 } as const;
/** First key of the two-key transaction lock that serializes run admission per project. */
export const RUN_ADMISSION_LOCK = 7_240_003;
/**
 * First key of the two-key transaction lock that serializes budget checks holding spend for calls
 * in flight: of one project (second key: its id) or one coordinator session's tree (its id). Not a
 * row lock: `for update` of the project row blocks every event append's foreign-key check of it,
 * while the append holds the project's event counter (a deadlock).
 */
export const BUDGET_CHECK_LOCK = 7_240_004;

/**
 * `exclusively` on a PostgreSQL server: the lock lives on a connection of its own, outside the
 * pool, so `fn` keeps every pooled connection (a one-connection pool included).
 */
export async function exclusivelyOn<T>(url: string, key: number, fn: () => Promise<T>): Promise<T> {
  const lock = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await lock`select pg_advisory_lock(${key})`;
    try {
      return await fn();
    } finally {
      await lock`select pg_advisory_unlock(${key})`;
    }
  } finally {
    await lock.end({ timeout: 5 });
  }
}

export type DatabaseOptions = { driver: 'postgres'; url: string; maxConnections?: number } | { driver: 'pglite'; dataDir?: string };

export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  if (options.driver === 'postgres') {
    const size = options.maxConnections ?? 10;
    const client = postgres(options.url, {
      max: size,
      onnotice: () => {},
      // bigint columns come back as strings; drizzle maps them per column mode.
      types: {},
    });
    const open = { count: 0 };
    const db = drizzlePostgres(countingTransactions(preparing(client), 'begin', open), { schema }) as unknown as Database;
    let notifier: postgres.Sql | null = null;
    return {
      db,
      driver: 'postgres',
      async listen(channel, handler) {
        const subscription = await client.listen(channel, (payload) => handler(payload));
        return async () => {
          await subscription.unlisten();
        };
      },
      async notify(channel, payload) {
        notifier ??= postgres(options.url, { max: 1, onnotice: () => {} });
        await notifier`select pg_notify(${channel}, ${payload})`;
      },
      exclusively: (key, fn) => exclusivelyOn(options.url, key, fn),
      poolStats: () => ({ size, transactionsOpen: open.count }),
      async close() {
        await notifier?.end({ timeout: 5 });
        await client.end({ timeout: 5 });
      },
    };
  }

  let dataDir: string | undefined;
  if (options.dataDir) {
    dataDir = path.resolve(options.dataDir);
    // The database is this user's alone (issue 28): new directories on the way are 0700 too.
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    fs.chmodSync(dataDir, 0o700);
  }
  const client = dataDir ? new PGlite(dataDir) : new PGlite();
  await client.waitReady;
  if (dataDir) await restrictToOwner(dataDir);
  const open = { count: 0 };
  const db = drizzlePglite(countingTransactions(client, 'transaction', open), { schema }) as unknown as Database;
  return {
    db,
    driver: 'pglite',
    async listen(channel, handler) {
      const unsubscribe = await client.listen(channel, handler);
      return async () => {
        await unsubscribe();
      };
    },
    async notify(channel, payload) {
      await client.query('select pg_notify($1, $2)', [channel, payload]);
    },
    exclusively: (_key, fn) => fn(),
    // One embedded instance: one connection, transactions taking turns.
    poolStats: () => ({ size: 1, transactionsOpen: open.count }),
    async close() {
      await client.close();
    },
  };
}

/**
 * postgres.js sends a statement with parameters that is not prepared in two round trips (a
 * Parse/Describe to learn the parameter types, then Bind/Execute): twice the socket writes and
 * server wake-ups of a prepared one. drizzle asks for unprepared statements unless a query is
 * given a name, so every statement through this client is prepared (per connection, by its
 * text). A schema change that alters a statement's result columns fails it once inside a
 * transaction (outside one postgres.js prepares it again); docs/decisions/every-statement-is-prepared.md.
 */
export function preparing(sql: postgres.Sql): postgres.Sql {
  return new Proxy(sql, {
    get(target, key, receiver) {
      if (key === 'unsafe')
        return (query: string, params?: unknown[], options?: object) => target.unsafe(query, params as never, { ...options, prepare: true });
      if (key === 'begin' || key === 'savepoint') {
        return (...args: unknown[]) => {
          const fn = args.pop() as (inner: postgres.Sql) => unknown;
          const method = Reflect.get(target, key) as (...rest: unknown[]) => unknown;
          return method(...args, (inner: postgres.Sql) => fn(preparing(inner)));
        };
      }
      return Reflect.get(target, key, receiver);
    },
  });
}

/** Rows of a raw `db.execute(sql)` result, whichever driver produced it. */
export function rowsOf<T>(result: unknown): T[] {
  if (Array.isArray(result)) return result as T[];
  return ((result as { rows?: T[] }).rows ?? []) as T[];
}

/**
 * PGlite (emscripten's NODEFS) writes the cluster it initializes with explicit modes, 0666 files
 * and umask-derived directories whatever the process umask; Postgres itself creates later files
 * 0600 and directories 0700. So after every open the tree loses its group and other bits: the
 * files of a fresh cluster, and those an older version left open.
 */
async function restrictToOwner(dir: string): Promise<void> {
  for (const entry of await fs.promises.readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isSymbolicLink()) continue;
    const at = path.join(entry.parentPath, entry.name);
    const { mode } = await fs.promises.lstat(at);
    if ((mode & 0o077) !== 0) await fs.promises.chmod(at, mode & 0o700);
  }
}
