import * as v from 'valibot';

/**
 * List paging (spec 2 common rule 5): `limit` 1-200 (default 50) and an opaque keyset
 * `cursor`. Cursors encode the sort key of the last row returned: `(createdAt, id)`.
 */
/** The `limit` query parameter of every list: 1-200, default 50. */
export const ListLimit = v.optional(
  v.pipe(
    v.string(),
    v.regex(/^\d{1,3}$/, 'limit must be an integer from 1 to 200'),
    v.transform(Number),
    v.minValue(1, 'limit must be an integer from 1 to 200'),
    v.maxValue(200, 'limit must be an integer from 1 to 200'),
  ),
  '50',
);

export const ListQuery = v.object({
  limit: ListLimit,
  cursor: v.optional(v.pipe(v.string(), v.maxLength(512, 'cursor is too long'))),
});

export type Keyset = { createdAt: Date; id: string };

export type Page<T> = { data: T[]; pageInfo: { nextCursor: string | null } };

export function encodeKeysetCursor(keyset: Keyset): string {
  return toBase64Url(`k1|${keyset.createdAt.toISOString()}|${keyset.id}`);
}

/** Returns null for a cursor that is not one of ours; callers turn that into a 400. */
export function decodeKeysetCursor(cursor: string): Keyset | null {
  let text: string;
  try {
    text = fromBase64Url(cursor);
  } catch {
    return null;
  }
  const [version, iso, id] = text.split('|');
  if (version !== 'k1' || !iso || !id) return null;
  const createdAt = new Date(iso);
  if (Number.isNaN(createdAt.getTime()) || !/^[0-9a-f-]{36}$/i.test(id)) return null;
  return { createdAt, id };
}

/** Builds a page from `limit + 1` rows fetched in keyset order. */
export function toPage<Row extends Keyset, T>(rows: Row[], limit: number, map: (row: Row) => T): Page<T> {
  const hasMore = rows.length > limit;
  const pageRows = hasMore ? rows.slice(0, limit) : rows;
  const last = pageRows.at(-1);
  return {
    data: pageRows.map(map),
    pageInfo: { nextCursor: hasMore && last ? encodeKeysetCursor(last) : null },
  };
}

function toBase64Url(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(text: string): string {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) throw new Error('not base64url');
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  return new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(binary, (ch) => ch.charCodeAt(0)));
}
