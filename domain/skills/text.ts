/**
 * Text safety shared by every Skill string. Postgres text and jsonb cannot hold U+0000, and a
 * lone surrogate would be replaced on the way to UTF-8, so both are refused rather than stored
 * differently from what was sent.
 */

// C0 and C1 controls and DEL.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
// The same, but tab, line feed and carriage return are allowed (multi-line fields).
const CONTROL_EXCEPT_WHITESPACE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;

/** A problem message for a single-line field, or null. */
export function singleLineProblem(value: string): string | null {
  if (!value.isWellFormed()) return 'must be well-formed Unicode (no lone surrogates)';
  if (CONTROL.test(value)) return 'must not contain control characters or line breaks';
  return null;
}

/** A problem message for a multi-line field (tab, CR and LF allowed), or null. */
export function multiLineProblem(value: string): string | null {
  if (!value.isWellFormed()) return 'must be well-formed Unicode (no lone surrogates)';
  if (CONTROL_EXCEPT_WHITESPACE.test(value)) return 'must not contain control characters other than tab and line breaks';
  return null;
}
