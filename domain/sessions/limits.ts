/** Session and run limits (spec 3 "Limits"). */

/** Message text of session and turn bodies: at most 100,000 characters. */
export const MESSAGE_TEXT_MAX_LENGTH = 100_000;

/** Session titles: presentation only, one short line. */
export const SESSION_TITLE_MAX_LENGTH = 200;

/** The wall-time ceiling of every new submission (spec 3 "Submission wall-time ceiling"). */
export const RUN_WALL_CEILING_MS = 48 * 60 * 60 * 1000;

/** The `messages.step_key` of a run's user input; activities use their own step keys. */
export const INPUT_STEP_KEY = 'input';

/** The wall deadline of a run created at `createdAt`. */
export function wallDeadlineOf(createdAt: Date): Date {
  return new Date(createdAt.getTime() + RUN_WALL_CEILING_MS);
}
