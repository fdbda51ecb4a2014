import { describe, expect, it } from 'vitest';
import { fullBucket, isFull, refilled, returnToken, takeToken } from './token-bucket.ts';

const rule = { perSecond: 2, burst: 3 };

describe('token buckets', () => {
  it('allows a burst, then refuses until a token refills, saying when', () => {
    let state = fullBucket(rule, 0);
    for (let i = 0; i < 3; i++) {
      const taken = takeToken([{ rule, state }], 0);
      if (!taken.allowed) throw new Error('refused within the burst');
      state = taken.states[0]!;
    }
    expect(takeToken([{ rule, state }], 0)).toEqual({ allowed: false, index: 0, retryAfterMs: 500 });
    expect(takeToken([{ rule, state }], 250)).toEqual({ allowed: false, index: 0, retryAfterMs: 250 });
    expect(takeToken([{ rule, state }], 500).allowed).toBe(true);
  });

  it('charges every bucket or none, and waits for the slowest', () => {
    const slow = { perSecond: 1, burst: 1 };
    const fast = fullBucket(rule, 0);
    const empty = { tokens: 0, atMs: 0 };
    const refused = takeToken(
      [
        { rule, state: fast },
        { rule: slow, state: empty },
      ],
      0,
    );
    expect(refused).toEqual({ allowed: false, index: 1, retryAfterMs: 1000 });
    // The refusal took nothing from the bucket that had tokens.
    expect(fast.tokens).toBe(3);
  });

  it('never refills past the burst, nor when the clock goes back', () => {
    expect(refilled({ tokens: 0, atMs: 0 }, rule, 60_000).tokens).toBe(3);
    expect(refilled({ tokens: 1, atMs: 1_000 }, rule, 0)).toEqual({ tokens: 1, atMs: 1_000 });
    expect(isFull({ tokens: 2, atMs: 0 }, rule, 499)).toBe(false);
    expect(isFull({ tokens: 2, atMs: 0 }, rule, 500)).toBe(true);
  });

  it('returns a token to a bucket, refilled first, never past the burst', () => {
    const rule = { perSecond: 2, burst: 3 };
    expect(returnToken({ tokens: 0, atMs: 0 }, rule, 250)).toEqual({ tokens: 1.5, atMs: 250 });
    expect(returnToken({ tokens: 2.5, atMs: 0 }, rule, 0)).toEqual({ tokens: 3, atMs: 0 });
  });
});
