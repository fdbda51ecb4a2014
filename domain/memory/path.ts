import { MEMORY_PATH_MAX_BYTES, MEMORY_PATH_MAX_SEGMENTS } from './limits.ts';

const utf8Bytes = (value: string) => new TextEncoder().encode(value).length;

// Control characters (Cc), format characters (Cf) and the line and paragraph separators.
const FORBIDDEN = /[\p{Cc}\p{Cf}\u2028\u2029]/u;

/**
 * Why `path` is not a memory path, or null (the hosted API's rule): it starts with `/`, has 1 to
 * 20 segments, none empty, `.` or `..`; no control or format characters, nor U+2028/U+2029;
 * in Unicode Normalization Form C; at most 1,024 bytes of UTF-8. Paths are case-sensitive.
 */
export function memoryPathProblem(path: string): string | null {
  if (!path.isWellFormed()) return 'must be well-formed Unicode (no lone surrogates)';
  if (!path.startsWith('/')) return 'must start with "/"';
  if (FORBIDDEN.test(path)) return 'must not contain control or format characters';
  if (path.normalize('NFC') !== path) return 'must be in Unicode Normalization Form C';
  if (utf8Bytes(path) > MEMORY_PATH_MAX_BYTES) return `must be at most ${MEMORY_PATH_MAX_BYTES} bytes`;
  const segments = path.slice(1).split('/');
  if (segments.length > MEMORY_PATH_MAX_SEGMENTS) return `must have at most ${MEMORY_PATH_MAX_SEGMENTS} segments`;
  if (segments.some((segment) => segment === '')) return 'must not have an empty segment (no "//" and no trailing "/")';
  if (segments.some((segment) => segment === '.' || segment === '..')) return 'must not have a "." or ".." segment';
  return null;
}

/**
 * Why `prefix` is not a listing prefix, or null: a path that ends with `/` (it matches whole
 * segments, so `/notes/` matches `/notes/acme.md` and not `/notes-archive/acme.md`), or `/` itself.
 */
export function memoryPrefixProblem(prefix: string): string | null {
  if (prefix === '/') return null;
  if (!prefix.endsWith('/')) return 'must end with "/"';
  return memoryPathProblem(prefix.slice(0, -1));
}

/** A path as a LIKE pattern's literal part (`%`, `_` and `\` escaped): `${likeLiteral(prefix)}%` matches what lies below. */
export const likeLiteral = (path: string) => path.replace(/[\\%_]/g, (c) => `\\${c}`);

/** The proper ancestors of a path as paths (`/a/b/c` → `/a`, `/a/b`): a memory there would overlap it. */
export function ancestorPaths(path: string): string[] {
  const segments = path.slice(1).split('/');
  return segments.slice(0, -1).map((_, index) => `/${segments.slice(0, index + 1).join('/')}`);
}

/**
 * The directory a store is mounted at in a sandbox, from its name: lowercased, every run of
 * characters other than ASCII letters and digits one hyphen, no hyphen at either end
 * (`"Customer notes (EU)"` → `customer-notes-eu`); `store` when nothing is left.
 */
export function memoryStoreSlug(name: string): string {
  const slug = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return slug === '' ? 'store' : slug;
}

/** Where a store with that slug is mounted in a session's sandbox. */
export const memoryMountPath = (slug: string) => `/mnt/memory/${slug}/`;
