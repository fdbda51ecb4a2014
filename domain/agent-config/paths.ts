import { ValidationError } from '../errors.ts';

/** The path prefix of a config when the caller gives none (`config.tools[0].name`). */
export const DEFAULT_ROOT = 'config';

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * Appends one step to a JavaScript-style path: `[2]` for array indexes, `.name` for keys that
 * are identifiers, and `["x-y"]` (JSON-quoted) for any other key, so every path is unambiguous
 * even for property names that contain dots or dashes.
 */
export function childPath(parent: string, key: string | number): string {
  if (typeof key === 'number') return `${parent}[${key}]`;
  if (IDENTIFIER.test(key)) return parent === '' ? key : `${parent}.${key}`;
  return `${parent}[${JSON.stringify(key)}]`;
}

/** Folds several steps onto a path: `pathOf('config', 'tools', 2, 'name')`. */
export function pathOf(root: string, ...keys: ReadonlyArray<string | number>): string {
  return keys.reduce<string>((path, key) => childPath(path, key), root);
}

/**
 * The one way this folder rejects input: a `bad_request` whose message starts with the path and
 * whose `details.path` is the exact location the API renders.
 */
export function invalid(path: string, problem: string, details: Record<string, unknown> = {}): ValidationError {
  return new ValidationError(`${path} ${problem}`, { ...details, path });
}

/** Thousands separators without Intl (domain code also runs inside Temporal's workflow sandbox). */
export function grouped(value: number): string {
  return String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}
