import { settingsTableRows } from './settings.ts';

/** Where the generated table sits in docs/settings.md. */
export const TABLE_BEGIN = '<!-- settings table: generated from config/settings.ts by `npm run docs:settings` -->';
export const TABLE_END = '<!-- end of the settings table -->';

/** The settings table of docs/settings.md, one row per variable the service reads. */
export function settingsTable(): string {
  const cell = (text: string) => text.replaceAll('|', '\\|');
  const rows = settingsTableRows().map((row) => `| \`${row.name}\` | ${cell(row.meaning)} | ${cell(row.shown)} |`);
  return ['| variable | meaning | default |', '| --- | --- | --- |', ...rows].join('\n');
}

/** The document with its table replaced by the current one. */
export function withCurrentTable(document: string): string {
  const begin = document.indexOf(TABLE_BEGIN);
  const end = document.indexOf(TABLE_END);
  if (begin < 0 || end < begin) throw new Error(`docs/settings.md lacks the table markers ${TABLE_BEGIN} … ${TABLE_END}`);
  return `${document.slice(0, begin + TABLE_BEGIN.length)}\n\n${settingsTable()}\n\n${document.slice(end)}`;
}
