import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where the console's built bundle lives (git-ignored); the API process serves it at `/`. */
export const CONSOLE_DIST = fileURLToPath(new URL('./dist/', import.meta.url));
const APP = fileURLToPath(new URL('./app/', import.meta.url));
const ROOT = fileURLToPath(new URL('../', import.meta.url));
const STAMP = join(CONSOLE_DIST, '.source-hash');
/** What the bundle is built from: the app, the typed client and the domain rules it imports. */
const SOURCES = ['console/app', 'client/src', 'domain', 'console/build.ts', 'package-lock.json'];

function filesUnder(path: string): string[] {
  if (!existsSync(path)) return [];
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path, { withFileTypes: true })
    .filter((entry) => !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.test.tsx'))
    .flatMap((entry) => filesUnder(join(path, entry.name)));
}

/** A digest of every source file's path and bytes: a bundle is stale when it was built from another. */
export function consoleSourceHash(): string {
  const hash = createHash('sha256');
  for (const file of SOURCES.flatMap((source) => filesUnder(join(ROOT, source))).sort()) {
    hash.update(relative(ROOT, file)).update('\0').update(readFileSync(file)).update('\0');
  }
  return hash.digest('hex');
}

export const isConsoleBundleFresh = () => existsSync(STAMP) && readFileSync(STAMP, 'utf8') === consoleSourceHash();

/**
 * Builds the console with Vite when the bundle is missing or was built from other sources
 * (`npm start`, the test setup, the image build); otherwise does nothing (about 50 ms to hash).
 */
export async function ensureConsoleBundle(log: (message: string) => void = () => {}): Promise<{ built: boolean }> {
  const hash = consoleSourceHash();
  if (existsSync(STAMP) && readFileSync(STAMP, 'utf8') === hash) return { built: false };
  log('building the console (Vite)…');
  const started = Date.now();
  const [{ build }, { default: react }] = await Promise.all([import('vite'), import('@vitejs/plugin-react')]);
  await build({
    root: APP,
    base: '/',
    configFile: false,
    logLevel: 'warn',
    plugins: [react()],
    build: { outDir: CONSOLE_DIST, emptyOutDir: true, sourcemap: true, modulePreload: { polyfill: false }, chunkSizeWarningLimit: 1024 },
  });
  writeFileSync(STAMP, hash);
  log(`console built in ${Date.now() - started} ms`);
  return { built: true };
}
