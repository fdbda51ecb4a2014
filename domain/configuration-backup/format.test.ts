import * as fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { backupJsonSchema } from '../../scripts/backup-schema.ts';

describe('the published JSON Schema of the backup file', () => {
  it('is generated from the schema the server reads backups with (run node scripts/backup-schema.ts after a change)', () => {
    expect(fs.readFileSync(new URL('../../docs/configuration-backup.schema.json', import.meta.url), 'utf8')).toBe(backupJsonSchema());
  });
});
