import * as v from 'valibot';

/** Spec 2 common rule 2 and spec 3 "Limits": non-empty, at most 200 characters, 24 hours. */
export const IDEMPOTENCY_KEY_MAX_LENGTH = 200;
export const IDEMPOTENCY_REPLAY_WINDOW_MS = 24 * 60 * 60 * 1000;

export const IdempotencyKey = v.pipe(
  v.string(),
  v.minLength(1, 'The Idempotency-Key header must not be empty'),
  v.maxLength(IDEMPOTENCY_KEY_MAX_LENGTH, `The Idempotency-Key header must be at most ${IDEMPOTENCY_KEY_MAX_LENGTH} characters`),
);

export function isWithinReplayWindow(createdAt: Date, now: Date): boolean {
  return now.getTime() - createdAt.getTime() < IDEMPOTENCY_REPLAY_WINDOW_MS;
}
