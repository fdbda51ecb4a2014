import type { CatalogEntry } from './types.ts';

/**
 * The catalog query: `search` is a case-insensitive substring of `model` or `displayName`;
 * `limit` keeps the first matches in the vendor's order. `total` counts every match.
 */
export function filterCatalog(
  entries: readonly CatalogEntry[],
  query: { search?: string | undefined; limit: number },
): { data: CatalogEntry[]; total: number } {
  const needle = query.search?.trim().toLowerCase() ?? '';
  const matches = needle
    ? entries.filter((entry) => entry.model.toLowerCase().includes(needle) || entry.displayName.toLowerCase().includes(needle))
    : [...entries];
  return { data: matches.slice(0, query.limit), total: matches.length };
}
