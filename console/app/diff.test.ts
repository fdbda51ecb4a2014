import { describe, expect, it } from 'vitest';
import { sideBySideDiff, stableJson } from './diff.ts';

describe('the version diff', () => {
  it('pairs a changed line, keeps equal lines, and shows additions and removals on their side', () => {
    const rows = sideBySideDiff('a\nb\nc\nd', 'a\nB\nc\ne\nf');
    expect(rows.map((row) => [row.kind, row.left, row.right])).toEqual([
      ['same', 'a', 'a'],
      ['changed', 'b', 'B'],
      ['same', 'c', 'c'],
      ['changed', 'd', 'e'],
      ['added', null, 'f'],
    ]);
    expect(rows.map((row) => [row.leftNumber, row.rightNumber])).toEqual([
      [1, 1],
      [2, 2],
      [3, 3],
      [4, 4],
      [null, 5],
    ]);
    expect(sideBySideDiff('x\ny', 'y').map((row) => row.kind)).toEqual(['removed', 'same']);
  });

  it('compares configs by content, whatever their key order', () => {
    expect(stableJson({ b: 1, a: { d: [2, { z: 1, y: 2 }], c: 3 } })).toBe(stableJson({ a: { c: 3, d: [2, { y: 2, z: 1 }] }, b: 1 }));
    expect(sideBySideDiff(stableJson({ a: 1, b: 2 }), stableJson({ b: 2, a: 1 })).every((row) => row.kind === 'same')).toBe(true);
  });
});
