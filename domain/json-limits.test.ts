import { describe, expect, it } from 'vitest';
import { describeJsonProblem, MAX_JSON_DEPTH, unstorableJsonPart } from './json-limits.ts';

/** `levels` objects nested in each other, as text (JSON.stringify itself recurses). */
const nested = (levels: number) => JSON.parse(`${'{"a":'.repeat(levels - 1)}{}${'}'.repeat(levels - 1)}`);

describe('unstorableJsonPart', () => {
  it('takes ordinary values, emoji (surrogate pairs) included', () => {
    for (const value of [null, 1, 'text', true, [], {}, { a: [1, 'b', { c: null }] }, '😀 ok', { '😀': ['\u00e9'] }])
      expect(unstorableJsonPart(value)).toBeNull();
  });

  it('finds a lone high or low surrogate, in a value or a key, at its path in document order', () => {
    expect(unstorableJsonPart(JSON.parse('{"a":"ok","b":[1,"x\\ud800"],"c":"\\udc00"}'))).toEqual({ kind: 'lone_surrogate', path: ['b', 1], inKey: false });
    expect(unstorableJsonPart(JSON.parse('"\\udc00 alone"'))).toEqual({ kind: 'lone_surrogate', path: [], inKey: false });
    // A key names the key made printable, never the raw key.
    expect(unstorableJsonPart(JSON.parse('{"meta":{"k\\ud800":1}}'))).toEqual({ kind: 'lone_surrogate', path: ['meta', 'k\ufffd'], inKey: true });
    // A low surrogate before a high one is two lone surrogates, not a pair.
    expect(unstorableJsonPart(JSON.parse('["\\udc00\\ud800"]'))?.kind).toBe('lone_surrogate');
  });

  it('finds a NUL in a value or a key', () => {
    expect(unstorableJsonPart({ a: 'x\u0000y' })).toEqual({ kind: 'nul', path: ['a'], inKey: false });
    expect(unstorableJsonPart({ 'x\u0000': 1 })).toEqual({ kind: 'nul', path: ['x\ufffd'], inKey: true });
  });

  it(`takes ${MAX_JSON_DEPTH} levels of nesting and refuses the next, naming where it crossed the limit`, () => {
    expect(unstorableJsonPart(nested(MAX_JSON_DEPTH))).toBeNull();
    const problem = unstorableJsonPart(nested(MAX_JSON_DEPTH + 1));
    expect(problem).toEqual({ kind: 'too_deep', path: Array(MAX_JSON_DEPTH).fill('a'), maxDepth: MAX_JSON_DEPTH });
    expect(describeJsonProblem(problem!)).toBe(`nests deeper than ${MAX_JSON_DEPTH} levels (the limit for JSON values)`);
    expect(unstorableJsonPart([[[1]]], 2)).toMatchObject({ kind: 'too_deep', path: [0, 0] });
  });

  it('walks a value far deeper than the stack allows without recursing', () => {
    const deep = JSON.parse(`${'['.repeat(200_000)}${']'.repeat(200_000)}`);
    expect(unstorableJsonPart(deep)?.kind).toBe('too_deep');
    expect(unstorableJsonPart(deep, Number.POSITIVE_INFINITY)).toBeNull();
  });
});
