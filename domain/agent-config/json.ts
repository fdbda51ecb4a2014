import { childPath, invalid } from './paths.ts';

/** Plain JSON objects only: no arrays, class instances or exotic prototypes. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** Copies an example as plain JSON, refusing anything JSON cannot carry. */
export function copyJson(value: unknown, path: string): unknown {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (Array.isArray(value)) return value.map((item, index) => copyJson(item, childPath(path, index)));
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      // defineProperty, not assignment: an example key "__proto__" must stay data, not a prototype.
      Object.defineProperty(out, key, { value: copyJson(item, childPath(path, key)), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  throw invalid(path, 'must be a JSON value');
}
