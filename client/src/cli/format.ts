/**
 * Figures for people: token counts with thousands separators, amounts of money exact enough to
 * see a cheap call (six decimals under one unit, two above), and tables whose number columns line
 * up on the right.
 */
export const count = (value: number) => value.toLocaleString('en');

export const amount = (value: number) => value.toLocaleString('en', { maximumFractionDigits: value >= 1 ? 2 : 6 });

/** One run's or session's spend: `1,234 in · 56 out · cost 0.0012` (cache tokens when there are any). */
export function spendOf(figures: { inputTokens: number; outputTokens: number; cacheReadTokens: number; cacheWriteTokens: number; cost: number }): string {
  const cache =
    figures.cacheReadTokens || figures.cacheWriteTokens ? ` · cache ${count(figures.cacheReadTokens)} read, ${count(figures.cacheWriteTokens)} written` : '';
  return `${count(figures.inputTokens)} in · ${count(figures.outputTokens)} out${cache} · cost ${amount(figures.cost)}`;
}

/** Rows under a header; the first column left-aligned, the others (figures) right-aligned. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}
