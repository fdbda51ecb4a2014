/**
 * The `name` of a file input: a plain filename, written by the runtime as
 * `.svc/attachments/{runId}/{name}` (spec 2 "File input item", rule 4), so it must be one safe
 * path segment.
 *
 * Choices (docs/decisions/attachment-file-rules.md):
 * - 1-255 UTF-8 bytes (the common filesystem limit for one segment), well-formed Unicode.
 * - No `/` or `\`, not `.` or `..`, no control characters (C0, DEL and C1) and no bidirectional
 *   controls (U+061C, U+200E-U+200F, U+202A-U+202E, U+2066-U+2069), which make a name display
 *   as something else (`invoice\u202Efdp.exe`).
 * - No leading or trailing whitespace: such names are nearly always a client bug, and trimming
 *   filesystems would store a different name.
 * - An extension is required: a final `.` that is neither first nor last. `.env` or `Makefile`
 *   have none; the kind of a file is decided by its extension.
 * - Windows device names (`CON`, `NUL`) and `:` are allowed: workspaces live on Linux.
 */

export const FILE_NAME_MAX_BYTES = 255;

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const BIDI_CONTROL = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const EDGE_WHITESPACE = /^\s|\s$/;

/** Why `name` is not a plain filename, or null when it is. */
export function fileNameProblem(name: string): string | null {
  if (name === '') return 'must not be empty';
  // A UTF-16 unit is at least one UTF-8 byte, so a longer string needs no encoding to refuse.
  if (name.length > FILE_NAME_MAX_BYTES || utf8Length(name) > FILE_NAME_MAX_BYTES) return `must be at most ${FILE_NAME_MAX_BYTES} bytes in UTF-8`;
  if (!name.isWellFormed()) return 'must be well-formed Unicode (it has an unpaired surrogate)';
  if (CONTROL.test(name)) return 'must not contain control characters';
  if (BIDI_CONTROL.test(name)) return 'must not contain bidirectional control characters';
  if (name.includes('/') || name.includes('\\')) return 'must be a plain filename, not a path (no / or \\)';
  if (name === '.' || name === '..') return 'must be a filename, not . or ..';
  if (EDGE_WHITESPACE.test(name)) return 'must not start or end with whitespace';
  if (extensionOf(name) === null) return 'must have an extension (such as .txt or .pdf)';
  return null;
}

/** The lowercase extension of a filename without its dot, or null when it has none. */
export function extensionOf(name: string): string | null {
  const dot = name.lastIndexOf('.');
  if (dot <= 0 || dot === name.length - 1) return null;
  return name.slice(dot + 1).toLowerCase();
}

/**
 * The key two names collide on. Workspaces may be synced to case-insensitive filesystems
 * (macOS, Windows), where `Report.pdf` and `report.PDF` or NFC and NFD spellings are one file,
 * so names that differ only that way are duplicates.
 */
export function fileNameKey(name: string): string {
  return name.normalize('NFC').toLowerCase();
}

function utf8Length(text: string): number {
  let bytes = 0;
  for (const char of text) {
    const point = char.codePointAt(0)!;
    bytes += point < 0x80 ? 1 : point < 0x800 ? 2 : point < 0x10000 ? 3 : 4;
  }
  return bytes;
}
