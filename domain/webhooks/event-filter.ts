/**
 * Webhook event filters (spec 2 "Event webhooks"): exact kinds such as `run.completed` and
 * family wildcards such as `run.*`, which match every kind that starts with `run.`. A null
 * filter delivers every kind.
 */

/** Spec 3 limits: at most 100 filter entries. */
export const MAX_EVENT_KIND_FILTERS = 100;

const KIND = /^[a-z][a-z0-9_]*(\.[a-z0-9_]+)*$/;
const FAMILY_WILDCARD = /^[a-z][a-z0-9_]*(\.[a-z0-9_]+)*\.\*$/;

/** Why a filter entry is malformed, or null when it is a valid kind or family wildcard. */
export function eventKindFilterProblem(entry: string): string | null {
  if (entry.length === 0 || entry.length > 200) return 'must be 1 to 200 characters';
  if (KIND.test(entry) || FAMILY_WILDCARD.test(entry)) return null;
  return 'must be an event kind such as "run.completed" or a family wildcard such as "run.*"';
}

export type EventKindFilter = { exact: Set<string>; prefixes: string[] } | null;

/** Compiles a stored filter once per batch; null (all kinds) stays null. */
export function compileEventKindFilter(kinds: readonly string[] | null): EventKindFilter {
  if (kinds === null) return null;
  const exact = new Set<string>();
  const prefixes: string[] = [];
  for (const entry of kinds) {
    if (entry.endsWith('.*')) prefixes.push(entry.slice(0, -1));
    else exact.add(entry);
  }
  return { exact, prefixes };
}

export function matchesEventKind(filter: EventKindFilter, kind: string): boolean {
  if (filter === null) return true;
  return filter.exact.has(kind) || filter.prefixes.some((prefix) => kind.startsWith(prefix));
}
