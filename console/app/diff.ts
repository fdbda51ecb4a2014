/** One row of a side-by-side diff: the same line on both sides, or a removal, an addition, or a change. */
export type DiffRow = {
  kind: 'same' | 'removed' | 'added' | 'changed';
  left: string | null;
  right: string | null;
  leftNumber: number | null;
  rightNumber: number | null;
};

/** JSON with sorted keys, two-space indented: two configs diff by content, not key order. */
export function stableJson(value: unknown): string {
  const sort = (item: unknown): unknown =>
    Array.isArray(item)
      ? item.map(sort)
      : item && typeof item === 'object'
        ? Object.fromEntries(
            Object.entries(item as Record<string, unknown>)
              .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
              .map(([key, inner]) => [key, sort(inner)]),
          )
        : item;
  return JSON.stringify(sort(value), null, 2);
}

/**
 * A line diff (longest common subsequence) laid out side by side; a removal followed by an
 * addition pairs up as a change. Configs are small (a few thousand lines at most), so the
 * quadratic table is fine.
 */
export function sideBySideDiff(before: string, after: string): DiffRow[] {
  const a = before.split('\n');
  const b = after.split('\n');
  const lcs: number[][] = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--) lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const ops: Array<{ kind: 'same' | 'removed' | 'added'; i: number; j: number }> = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) ops.push({ kind: 'same', i: i++, j: j++ });
    // Removals first, so a changed line reads as its old text, then its new one.
    else if (i < a.length && (j >= b.length || lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) ops.push({ kind: 'removed', i: i++, j });
    else ops.push({ kind: 'added', i, j: j++ });
  }
  const rows: DiffRow[] = [];
  for (let k = 0; k < ops.length; k++) {
    const op = ops[k]!;
    if (op.kind === 'same') rows.push({ kind: 'same', left: a[op.i]!, right: b[op.j]!, leftNumber: op.i + 1, rightNumber: op.j + 1 });
    else if (op.kind === 'removed') {
      const removed = [op];
      while (ops[k + 1]?.kind === 'removed') removed.push(ops[++k]!);
      const added: typeof ops = [];
      while (ops[k + 1]?.kind === 'added') added.push(ops[++k]!);
      for (let n = 0; n < Math.max(removed.length, added.length); n++) {
        const left = removed[n];
        const right = added[n];
        rows.push({
          kind: left && right ? 'changed' : left ? 'removed' : 'added',
          left: left ? a[left.i]! : null,
          right: right ? b[right.j]! : null,
          leftNumber: left ? left.i + 1 : null,
          rightNumber: right ? right.j + 1 : null,
        });
      }
    } else rows.push({ kind: 'added', left: null, right: b[op.j]!, leftNumber: null, rightNumber: op.j + 1 });
  }
  return rows;
}
