import { describe, expect, it } from 'vitest';
import * as v from 'valibot';
import { canonicalJson } from './canonical-json.ts';
import { decodeKeysetCursor, encodeKeysetCursor, ListQuery, toPage } from './pagination.ts';

describe('keyset cursors', () => {
  it('round-trip and reject anything else', () => {
    const keyset = { createdAt: new Date('2026-05-01T10:00:00.123Z'), id: '0b6e3c1e-7f0e-4c55-9f6e-6f2d0c1d2e3f' };
    expect(decodeKeysetCursor(encodeKeysetCursor(keyset))).toEqual(keyset);
    for (const bad of ['', '%%%', 'aGVsbG8', encodeKeysetCursor(keyset).slice(0, -3)]) expect(decodeKeysetCursor(bad)).toBeNull();
  });

  it('pages from limit + 1 rows', () => {
    const rows = [1, 2, 3].map((n) => ({ createdAt: new Date(n * 1000), id: `00000000-0000-0000-0000-00000000000${n}` }));
    const page = toPage(rows, 2, (row) => row.id);
    expect(page.data).toHaveLength(2);
    expect(decodeKeysetCursor(page.pageInfo.nextCursor!)).toEqual(rows[1]);
    expect(toPage(rows.slice(0, 2), 2, (row) => row.id).pageInfo.nextCursor).toBeNull();
  });

  it('limit defaults to 50 and must be 1-200', () => {
    expect(v.parse(ListQuery, {}).limit).toBe(50);
    expect(v.parse(ListQuery, { limit: '200' }).limit).toBe(200);
    for (const limit of ['0', '201', '-1', '1.5', 'ten']) expect(v.safeParse(ListQuery, { limit }).success).toBe(false);
  });
});

describe('canonicalJson', () => {
  it('sorts keys at every level and drops undefined', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { f: 1, e: 0 }], c: undefined } })).toBe('{"a":{"d":[2,{"e":0,"f":1}]},"b":1}');
  });
});
