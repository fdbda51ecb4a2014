import { getTableColumns, is, SQL } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';

/**
 * The row an insert of `values` stores, built without asking the database: each column takes its
 * given value, else its static default, else null. A writer that holds its insert for a later
 * statement (`holdWrite`) and answers with the row uses this instead of `returning()`. A column
 * whose default the database computes (`defaultRandom`, `defaultNow`) or a function supplies must
 * be given, as must every not-null column without a default: the insert is then exactly this row.
 */
export function insertedRow<T extends PgTable>(table: T, values: T['$inferInsert']): T['$inferSelect'] {
  const given = values as Record<string, unknown>;
  const row: Record<string, unknown> = {};
  for (const [key, column] of Object.entries(getTableColumns(table))) {
    const value = given[key];
    if (value !== undefined) {
      if (is(value, SQL)) throw new Error(`insertedRow: ${key} is an SQL expression; its stored value is unknown here`);
      row[key] = value;
    } else if (column.defaultFn || column.onUpdateFn || is(column.default, SQL)) {
      throw new Error(`insertedRow: ${key} has a default computed at insert; give its value`);
    } else if (column.default !== undefined) {
      row[key] = column.default;
    } else if (column.notNull) {
      throw new Error(`insertedRow: ${key} is not null and has no default; give its value`);
    } else row[key] = null;
  }
  return row as T['$inferSelect'];
}
