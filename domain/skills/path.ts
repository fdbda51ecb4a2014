import { SKILL_FILE_EXTENSION, SKILL_MANIFEST_PATH, SKILL_PATH_MAX_CHARS, SKILL_PATH_MAX_DEPTH, SKILL_PATH_SEGMENT_MAX_CHARS } from './limits.ts';

/**
 * Package path rules. A path is a pure string naming an entry inside the package: it never
 * addresses the host or a sandbox filesystem, and it must stay safe when the package is
 * materialized on any OS (Linux sandbox, a user's Windows checkout of an export).
 *
 * - relative, `/`-separated; no leading `/`, no backslash, no drive letter, no empty segment
 * - segments of `[A-Za-z0-9._-]`, 1-100 chars, not starting or ending with `.` (so no `.`,
 *   `..` or hidden entries), not a Windows device name (`con`, `nul`, `com1`, ...)
 * - at most 255 chars and 8 segments
 * - files end in `.md`; `SKILL.md` at the root is the manifest (any letter case)
 * - uniqueness is case-insensitive (see `pathIdentity`)
 */
export type EntryKind = 'file' | 'directory';

const SEGMENT = /^[A-Za-z0-9._-]+$/;
const DRIVE = /^[A-Za-z]:/;
const WINDOWS_DEVICE = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\.|$)/i;

/** The first rule `path` breaks as an entry of `kind`, or null when it is a valid package path. */
export function packagePathProblem(path: string, kind: EntryKind): string | null {
  if (path === '') return 'must not be empty';
  if (!path.isWellFormed() || /[\u0000-\u001f\u007f-\u009f]/.test(path)) return 'must not contain control characters';
  if (path.includes('\\')) return 'must use "/" as separator, not "\\"';
  if (path.startsWith('/')) return 'must be relative to the package root (no leading "/")';
  if (DRIVE.test(path)) return 'must not start with a drive letter';
  if (path.length > SKILL_PATH_MAX_CHARS) return `must be at most ${SKILL_PATH_MAX_CHARS} characters`;
  const segments = path.split('/');
  if (segments.length > SKILL_PATH_MAX_DEPTH) return `must have at most ${SKILL_PATH_MAX_DEPTH} segments`;
  for (const segment of segments) {
    const problem = segmentProblem(segment);
    if (problem) return problem;
  }
  if (kind === 'file') {
    if (!path.endsWith(SKILL_FILE_EXTENSION)) return `must name a Markdown file ending in "${SKILL_FILE_EXTENSION}"`;
    if (pathIdentity(path) === pathIdentity(SKILL_MANIFEST_PATH)) return `"${SKILL_MANIFEST_PATH}" at the package root is made from the version fields`;
  }
  return null;
}

function segmentProblem(segment: string): string | null {
  if (segment === '') return 'must not contain empty segments ("//" or a trailing "/")';
  if (segment === '.' || segment === '..') return 'must not contain "." or ".." segments';
  if (segment.length > SKILL_PATH_SEGMENT_MAX_CHARS) return `segments must be at most ${SKILL_PATH_SEGMENT_MAX_CHARS} characters`;
  if (!SEGMENT.test(segment)) return 'segments may contain only letters, digits, ".", "_" and "-"';
  if (segment.startsWith('.') || segment.endsWith('.')) return 'segments must not start or end with "."';
  if (WINDOWS_DEVICE.test(segment)) return `"${segment}" is a reserved device name`;
  return null;
}

/** The key two paths collide on: paths that differ only in letter case name the same entry. */
export function pathIdentity(path: string): string {
  return path.toLowerCase();
}

/** Every ancestor folder of `path`, outermost first: `a/b/c.md` → `a`, `a/b`. */
export function parentDirectories(path: string): string[] {
  const segments = path.split('/');
  return segments.slice(0, -1).map((_, index) => segments.slice(0, index + 1).join('/'));
}

/** True when `path` is `folder` itself or lies inside it (case-insensitively). */
export function isWithin(path: string, folder: string): boolean {
  const p = pathIdentity(path);
  const f = pathIdentity(folder);
  return p === f || p.startsWith(`${f}/`);
}
