import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The whole repository lints clean: `eslint .` with eslint.config.js (type-aware typescript-eslint
 * rules, among them no-floating-promises and no-misused-promises, and import-x/no-cycle), so CI
 * fails on a finding anywhere. Warnings count too: the config has none to give.
 */
it('lints clean: eslint .', async () => {
  const results = await new ESLint({ cwd: root }).lintFiles(['.']);
  const findings = results.flatMap((result) =>
    result.messages.map(
      (message) => `${path.relative(root, result.filePath)}:${message.line}:${message.column} ${message.ruleId ?? 'parse'} ${message.message.split('\n')[0]}`,
    ),
  );
  expect(findings).toEqual([]);
  // Nothing silently skipped: the service, the client and the browser console were all linted.
  const linted = new Set(results.map((result) => path.relative(root, result.filePath).split(path.sep)[0]));
  expect([...linted]).toEqual(expect.arrayContaining(['api', 'services', 'processes', 'adapters', 'workflows', 'activities', 'client', 'console', 'test']));
  // A ceiling, not a bound: 161 s on a quiet 2-core host, past 300 s with other test runs beside it.
}, 900_000);

/**
 * The whole tree is formatted by Prettier (.prettierrc.json; .prettierignore says what it leaves
 * alone): `prettier --list-different .` names every file that is not, so CI fails on it.
 */
it('is formatted: prettier --list-different .', () => {
  const prettier = createRequire(import.meta.url).resolve('prettier/bin/prettier.cjs');
  const run = spawnSync(process.execPath, [prettier, '--list-different', '.'], { cwd: root, encoding: 'utf8' });
  expect(run.stderr).toBe('');
  expect(run.stdout.split('\n').filter(Boolean), 'format them: npx prettier --write .').toEqual([]);
  expect(run.status).toBe(0);
}, 300_000);
