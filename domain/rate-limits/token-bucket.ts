/**
 * Token buckets for API request limits (docs/decisions/request-rate-limits.md): a bucket
 * holds up to `burst` tokens and refills at `perSecond`; a request takes one token from every
 * bucket it is charged to, or from none when any of them is empty.
 */
export type BucketRule = { perSecond: number; burst: number };
export type BucketState = { tokens: number; atMs: number };

/** A bucket nobody has drawn from is full. */
export function fullBucket(rule: BucketRule, nowMs: number): BucketState {
  return { tokens: rule.burst, atMs: nowMs };
}

/** The bucket as it stands at `nowMs` (a clock that went back refills nothing). */
export function refilled(state: BucketState, rule: BucketRule, nowMs: number): BucketState {
  const elapsedMs = Math.max(0, nowMs - state.atMs);
  return { tokens: Math.min(rule.burst, state.tokens + (elapsedMs * rule.perSecond) / 1000), atMs: Math.max(nowMs, state.atMs) };
}

export type Charge = { rule: BucketRule; state: BucketState };

export type TakeResult =
  | { allowed: true; states: BucketState[] }
  /** `index`: the first empty bucket; `retryAfterMs`: when every bucket has a token again. */
  | { allowed: false; index: number; retryAfterMs: number };

/** Takes one token from each charged bucket, all or nothing. */
export function takeToken(charges: readonly Charge[], nowMs: number): TakeResult {
  const current = charges.map(({ rule, state }) => refilled(state, rule, nowMs));
  const empty = current.findIndex((state) => state.tokens < 1);
  if (empty >= 0) {
    const retryAfterMs = Math.max(...current.map((state, i) => (state.tokens >= 1 ? 0 : ((1 - state.tokens) * 1000) / charges[i]!.rule.perSecond)));
    return { allowed: false, index: empty, retryAfterMs };
  }
  return { allowed: true, states: current.map((state) => ({ tokens: state.tokens - 1, atMs: state.atMs })) };
}

/** Whether a bucket has refilled completely (it can be forgotten: a fresh one is the same). */
export function isFull(state: BucketState, rule: BucketRule, nowMs: number): boolean {
  return refilled(state, rule, nowMs).tokens >= rule.burst;
}

/** Gives back a token taken for a request that turned out to be refused (never past `burst`). */
export function returnToken(state: BucketState, rule: BucketRule, nowMs: number): BucketState {
  const current = refilled(state, rule, nowMs);
  return { tokens: Math.min(rule.burst, current.tokens + 1), atMs: current.atMs };
}
