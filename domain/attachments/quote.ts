/** Caller-supplied text (a filename, a declared type) is echoed at most this long. */
export const ECHO_MAX_LENGTH = 100;

/** The first 100 code points of a caller-supplied value, with `…` when cut. */
export function truncated(value: string): string {
  // One more code point than the cap fits in twice as many UTF-16 units: enough to tell a cut.
  const points = Array.from(value.slice(0, (ECHO_MAX_LENGTH + 1) * 2));
  return points.length > ECHO_MAX_LENGTH ? `${points.slice(0, ECHO_MAX_LENGTH).join('')}…` : points.join('');
}

/**
 * Quotes a caller-supplied value for an error message: truncated and JSON-quoted, so control
 * characters and lone surrogates come back escaped, never raw.
 */
export function quote(value: string): string {
  return JSON.stringify(truncated(value));
}
