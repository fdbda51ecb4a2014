import { and, asc, desc, eq, gt, lt, or, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import { ValidationError } from '../../domain/errors.ts';
import { decodeKeysetCursor } from '../../domain/pagination.ts';

/**
 * Keyset paging over `(createdAt, id)`: the condition that starts a page after `cursor`
 * (undefined on the first page) and the matching order. A cursor that is not ours is a 400.
 * Pair with `toPage` (domain/pagination.ts), fetching `limit + 1` rows.
 */
export function keysetPage(
  columns: { createdAt: PgColumn; id: PgColumn },
  cursor: string | undefined,
  direction: 'asc' | 'desc',
): { after: SQL | undefined; orderBy: SQL[] } {
  const after = cursor === undefined ? null : decodeKeysetCursor(cursor);
  if (cursor !== undefined && !after) throw new ValidationError('cursor is not valid', { path: 'query.cursor' });
  const beyond = direction === 'asc' ? gt : lt;
  const order = direction === 'asc' ? asc : desc;
  return {
    after: after ? or(beyond(columns.createdAt, after.createdAt), and(eq(columns.createdAt, after.createdAt), beyond(columns.id, after.id))) : undefined,
    orderBy: [order(columns.createdAt), order(columns.id)],
  };
}
