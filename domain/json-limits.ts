/**
 * What every JSON value a caller or a third party hands us must satisfy before anything stores
 * it (docs/decisions/unstorable-text-and-json.md, docs/decisions/json-depth-limit.md):
 *
 * - strings and keys are well-formed Unicode: a lone UTF-16 surrogate (`"\ud800"` in JSON) is not
 *   text PostgreSQL can hold (jsonb refuses it; a text column would silently turn it into U+FFFD);
 * - strings and keys hold no NUL, which neither text nor jsonb columns store;
 * - values nest at most `MAX_JSON_DEPTH` levels: storing, hashing and schema checks recurse, and a
 *   value thousands of levels deep overflows the stack.
 */

/**
 * Objects and arrays nested inside each other, the outermost counted as level 1. Tool schemas
 * allow 12 levels (spec 3 "Limits"), which a request body wraps in a few more (a configuration
 * backup puts a tool schema about 35 levels down); tool values under open objects may nest
 * further. 100 is far beyond real values and far below where recursion over a value breaks.
 */
export const MAX_JSON_DEPTH = 100;

export type JsonProblem =
  { kind: 'too_deep'; path: Array<string | number>; maxDepth: number } | { kind: 'lone_surrogate' | 'nul'; path: Array<string | number>; inKey: boolean };

type Frame = { value: unknown; level: number; parent: Frame | null; key: string | number | null };

/**
 * The first part of `value` (in document order) that cannot be stored, or null when all of it
 * can. A walk with its own stack, so a value of any depth (JSON.parse builds them without limit)
 * is examined without recursion; it stops at the first container past `maxDepth`. A problem in
 * a key names the key made printable (U+FFFD for each lone surrogate or NUL), never the raw key.
 */
export function unstorableJsonPart(value: unknown, maxDepth: number = MAX_JSON_DEPTH): JsonProblem | null {
  const stack: Frame[] = [{ value, level: 0, parent: null, key: null }];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    const current = frame.value;
    if (typeof current === 'string') {
      const problem = textProblem(current);
      if (problem) return { kind: problem, path: pathOf(frame), inKey: false };
      continue;
    }
    if (typeof current !== 'object' || current === null) continue;
    const level = frame.level + 1;
    if (level > maxDepth) return { kind: 'too_deep', path: pathOf(frame), maxDepth };
    const children: Frame[] = [];
    if (Array.isArray(current)) {
      current.forEach((item, index) => children.push({ value: item, level, parent: frame, key: index }));
    } else {
      for (const [key, item] of Object.entries(current)) {
        const problem = textProblem(key);
        if (problem) return { kind: problem, path: pathOf({ value: item, level, parent: frame, key: printable(key) }), inKey: true };
        children.push({ value: item, level, parent: frame, key });
      }
    }
    // Pushed last-first, so the walk meets the parts in document order.
    for (let index = children.length - 1; index >= 0; index--) stack.push(children[index]!);
  }
  return null;
}

/** A key as a path may show it: well-formed, without NUL (a path is shown, and may be stored). */
const printable = (key: string) => key.toWellFormed().replaceAll('\u0000', '\ufffd');

/** Why a string cannot be stored, if it cannot. */
function textProblem(text: string): 'lone_surrogate' | 'nul' | null {
  if (!text.isWellFormed()) return 'lone_surrogate';
  if (text.includes('\u0000')) return 'nul';
  return null;
}

/** What a problem amounts to for the caller (the path is prefixed by the caller). */
export function describeJsonProblem(problem: JsonProblem): string {
  if (problem.kind === 'too_deep') return `nests deeper than ${problem.maxDepth} levels (the limit for JSON values)`;
  const where = problem.inKey ? 'a key that' : 'text that';
  return problem.kind === 'lone_surrogate' ? `holds ${where} is not well-formed Unicode (a lone UTF-16 surrogate)` : `holds ${where} contains a NUL character`;
}

function pathOf(frame: Frame): Array<string | number> {
  const path: Array<string | number> = [];
  for (let at: Frame | null = frame; at && at.key !== null; at = at.parent) path.push(at.key);
  return path.reverse();
}
