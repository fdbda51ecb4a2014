// Writes the settings table of docs/settings.md from config/settings.ts (config/settings-table.test.ts fails while it is stale).
import { readFile, writeFile } from 'node:fs/promises';
import { withCurrentTable } from '../config/settings-table.ts';

const file = new URL('../docs/settings.md', import.meta.url);
await writeFile(file, withCurrentTable(await readFile(file, 'utf8')));
