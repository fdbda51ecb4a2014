import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveApp, type ServedApp } from '../support/http-server.ts';
import { startRunApp } from '../support/run-app.ts';

/**
 * The client as npm would publish it (issue 17 point 2, "publishable to npm"): `npm pack` builds
 * dist/ (JavaScript and declarations) and ships no TypeScript source; a project outside the
 * repository installs the tarball, type-checks the README's example against the package's
 * declarations, and runs it (plain Node, no type stripping inside node_modules) against the
 * real service; the packaged `svc` bin runs from dist/ too.
 */
const run = promisify(execFile);
const NODE = process.execPath;
const TSC = path.resolve('node_modules/.bin/tsc');
let f: Awaited<ReturnType<typeof startRunApp>>;
let served: ServedApp;
let consumer: string;

const npm = (args: string[], cwd: string) =>
  run('npm', args, {
    cwd,
    timeout: 120_000,
    env: { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' },
  });

beforeAll(async () => {
  f = await startRunApp();
  served = await serveApp(f.t.app.fetch);
  consumer = await mkdtemp(path.join(tmpdir(), 'svc-client-consumer-'));
  const { stdout } = await npm(['pack', '--json', '--pack-destination', consumer], path.resolve('client'));
  const [packed] = JSON.parse(stdout.slice(stdout.indexOf('['))) as Array<{ filename: string; files: Array<{ path: string }> }>;
  (globalThis as { packedFiles?: string[] }).packedFiles = packed!.files.map((file) => file.path);
  await writeFile(path.join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  await npm(['install', '--prefer-offline', '--no-package-lock', path.join(consumer, packed!.filename)], consumer);
}, 240_000);
afterAll(async () => {
  await served?.close();
  await f?.close();
  if (consumer) await rm(consumer, { recursive: true, force: true });
});

describe('the packed @svc/client', () => {
  it('ships compiled JavaScript with declarations, and no TypeScript source', () => {
    const files = (globalThis as { packedFiles?: string[] }).packedFiles!;
    expect(files).toEqual(
      expect.arrayContaining(['dist/index.js', 'dist/index.d.ts', 'dist/api-types.d.ts', 'dist/cli/main.js', 'bin/svc.js', 'README.md', 'package.json']),
    );
    expect(files.filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))).toEqual([]);
  });

  it("type-checks the README's example against the installed declarations and runs it against the service", async () => {
    const readme = await readFile(path.resolve('client/README.md'), 'utf8');
    const example = /```ts\n([\s\S]*?)```/.exec(readme)![1]!;
    await writeFile(path.join(consumer, 'example.ts'), example);
    const typeCheck = async (file: string) => {
      const compilerOptions = {
        target: 'es2024',
        module: 'nodenext',
        moduleResolution: 'nodenext',
        strict: true,
        noEmit: true,
        skipLibCheck: false,
        types: ['node'],
        typeRoots: [path.resolve('node_modules/@types')],
      };
      await writeFile(path.join(consumer, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: [file] }));
      return run(TSC, ['-p', 'tsconfig.json'], { cwd: consumer }).then(
        ({ stdout }) => stdout,
        (error: { stdout: string }) => error.stdout,
      );
    };
    expect(await typeCheck('example.ts')).toBe('');
    // The check is real: a body field of the wrong type fails it.
    await writeFile(
      path.join(consumer, 'wrong.ts'),
      "import { createClient } from '@svc/client';\nawait createClient({ baseUrl: 'x' }).call('post', '/v1/projects/{projectId}/sessions', { body: { agentId: 1 } });\n",
    );
    expect(await typeCheck('wrong.ts')).toContain("Type 'number' is not assignable to type 'string'");

    const result = await run(NODE, ['example.ts'], { cwd: consumer, timeout: 90_000, env: { ...process.env, SVC_URL: served.baseUrl, SVC_API_KEY: f.apiKey } });
    expect(result.stdout.trim()).toBe('completed ok 1');
    expect(await readdir(path.join(consumer, 'node_modules', '@svc', 'client'))).not.toContain('src');
  });

  it('installs the svc command, which runs from dist/', async () => {
    const help = await run(path.join(consumer, 'node_modules', '.bin', 'svc'), ['--help'], { cwd: consumer });
    expect(help.stdout).toContain('svc login');
  });
});
