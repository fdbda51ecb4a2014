import postgres from 'postgres';

/**
 * Connections of a test database that hold a transaction open without running a statement:
 * what a verb that calls out inside its transaction would leave while bytes travel.
 */
export async function idleInTransaction(url: string): Promise<string[]> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const rows = await sql<{ query: string }[]>`
      select query from pg_stat_activity
      where datname = current_database() and state = 'idle in transaction' and pid <> pg_backend_pid()`;
    return rows.map((row) => row.query);
  } finally {
    await sql.end({ timeout: 5 });
  }
}
