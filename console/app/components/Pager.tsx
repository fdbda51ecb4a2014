import { useMemo, useState, type ReactNode } from 'react';

export const PAGE_SIZE = 10;

/**
 * Spec 3 "Console fetch": the console fetches up to 100 agents or sessions, then filters locally
 * and shows ten rows a page.
 */
export function FilteredTable<T>({
  items,
  filterText,
  columns,
  row,
  empty,
  label,
}: {
  items: T[];
  filterText: (item: T) => string;
  columns: string[];
  row: (item: T) => ReactNode;
  empty: ReactNode;
  label: string;
}) {
  const [filter, setFilter] = useState('');
  const [page, setPage] = useState(0);
  const filtered = useMemo(() => {
    const needle = filter.trim().toLowerCase();
    return needle ? items.filter((item) => filterText(item).toLowerCase().includes(needle)) : items;
  }, [items, filter, filterText]);
  const pages = Math.max(1, Math.ceil(filtered.length / PAGE_SIZE));
  const current = Math.min(page, pages - 1);
  if (items.length === 0) return <div className="empty">{empty}</div>;
  return (
    <div>
      <label className="filter">
        Filter {label}
        <input type="search" value={filter} onChange={(event) => (setFilter(event.target.value), setPage(0))} placeholder="name, key, id or status" />
      </label>
      <table>
        <thead>
          <tr>
            {columns.map((column) => (
              <th key={column} scope="col">
                {column}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{filtered.slice(current * PAGE_SIZE, (current + 1) * PAGE_SIZE).map(row)}</tbody>
      </table>
      {filtered.length === 0 ? <p className="muted">Nothing matches “{filter}”.</p> : null}
      <nav className="pager" aria-label={`${label} pages`}>
        <button type="button" disabled={current === 0} onClick={() => setPage(current - 1)}>
          Previous
        </button>
        <span>
          Page {current + 1} of {pages} · {filtered.length} {label}
        </span>
        <button type="button" disabled={current >= pages - 1} onClick={() => setPage(current + 1)}>
          Next
        </button>
      </nav>
    </div>
  );
}
