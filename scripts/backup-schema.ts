import * as fs from 'node:fs';
import { toJsonSchema } from '@valibot/to-json-schema';
import { BackupFile } from '../domain/configuration-backup/format.ts';

/**
 * Writes docs/configuration-backup.schema.json from the valibot schema the server reads backups
 * with (`node scripts/backup-schema.ts`); `--check` exits 1 when the committed file is stale.
 */
export function backupJsonSchema(): string {
  const schema = toJsonSchema(BackupFile, { target: 'draft-2020-12', errorMode: 'throw' });
  const document = {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'urn:svc:organization-configuration:1',
    title: 'Agent runtime service: organization configuration backup, format version 1',
    ...schema,
  };
  return `${JSON.stringify(document, null, 2)}\n`;
}

const target = new URL('../docs/configuration-backup.schema.json', import.meta.url);
if (import.meta.main) {
  const text = backupJsonSchema();
  if (process.argv.includes('--check')) {
    const current = fs.existsSync(target) ? fs.readFileSync(target, 'utf8') : '';
    if (current !== text) {
      process.stderr.write('docs/configuration-backup.schema.json is stale: run node scripts/backup-schema.ts\n');
      process.exit(1);
    }
  } else {
    fs.writeFileSync(target, text);
  }
}
