import { describe, expect, it } from 'vitest';
import { decodeSequenceCursor, encodeSequenceCursor } from './cursors.ts';

describe('sequence cursors', () => {
  it('round-trip and refuse what is not ours', () => {
    expect(decodeSequenceCursor(encodeSequenceCursor(42))).toBe(42);
    for (const bad of ['', 'garbage', '!!', encodeSequenceCursor(1).slice(0, 3), btoa('s1|-1'), btoa('k1|x|y')]) expect(decodeSequenceCursor(bad)).toBeNull();
  });
});
