import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { SETTING_NAMES } from './settings.ts';
import { settingsTable, withCurrentTable } from './settings-table.ts';

describe('the settings table of docs/settings.md', () => {
  it('is the one config/settings.ts derives (run `npm run docs:settings` after changing a setting)', async () => {
    const document = await readFile(new URL('../docs/settings.md', import.meta.url), 'utf8');
    expect(document).toBe(withCurrentTable(document));
  });

  it('has a row for every variable the service reads, with its meaning and the default the schema applies', () => {
    const table = settingsTable();
    for (const name of SETTING_NAMES) expect(table).toMatch(new RegExp(`^\\| \`${name}\` \\| [^|]\\S`, 'm'));
    expect(table).toContain('| `SVC_PROJECT_RUNNING_RUNS_LIMIT` |');
    expect(table).toMatch(/^\| `SVC_RATE_LIMIT_API_KEY_BURST` \| .* \| `100` \|$/m);
    expect(table).toMatch(/^\| `SVC_MODEL_BASE_URL_VENDOR_A` \| .* \| `https:\/\/api\.openai\.com\/v1` \|$/m);
    expect(table).toMatch(/^\| `DATABASE_URL` \| PostgreSQL URL \| unset → embedded PGlite in `SVC_DATA_DIR` \|$/m);
  });
});
