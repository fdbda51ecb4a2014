import { createHash, randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, type WorkflowBundle, type Logger as TemporalLogger } from '@temporalio/worker';

/**
 * The workflow bundle, built with webpack once and then reused from a file while none of the
 * files it was built from changed. Bundling costs a worker ~1.5 s of CPU on every start, and a
 * worker that replaces a crashed one is what a waiting run is waiting for.
 *
 * The cache file records every module webpack put in the bundle (our workflow code and the
 * packages it imports, by absolute path) with a hash of its contents; any change to any of them,
 * or a different SDK, bundles again. Writing is best effort (a read-only install just bundles
 * every time) and atomic (a temporary file renamed), so concurrent starts never read half a file.
 */

const require = createRequire(import.meta.url);
const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const defaultCacheFile = path.join(projectRoot, 'node_modules', '.cache', 'agent-runtime-service', 'workflow-bundle.json');

type CachedBundle = { version: 1; workflowsPath: string; interceptorModules?: string[]; files: Record<string, string>; code: string };

export async function loadWorkflowBundle(options: {
  workflowsPath: string;
  logger: TemporalLogger;
  /** Where the bundle is kept; tests point it elsewhere. */
  cacheFile?: string;
  /** Workflow interceptor modules bundled beside the workflows (tracing); a bundle with them is cached apart. */
  workflowInterceptorModules?: string[];
}): Promise<WorkflowBundle & { fromCache: boolean }> {
  const interceptorModules = options.workflowInterceptorModules ?? [];
  const cacheFile = options.cacheFile ?? (interceptorModules.length > 0 ? defaultCacheFile.replace(/\.json$/, '.traced.json') : defaultCacheFile);
  const cached = await readCached(cacheFile, options.workflowsPath, interceptorModules);
  if (cached) return { code: cached, fromCache: true };

  // Module ids are relative to webpack's context, the working directory at bundling time.
  const context = process.cwd();
  const bundle = await bundleWorkflowCode({
    workflowsPath: options.workflowsPath,
    logger: options.logger,
    ...(interceptorModules.length > 0 ? { workflowInterceptorModules: interceptorModules } : {}),
  });
  const files: Record<string, string> = {};
  for (const id of bundledModuleIds(bundle.code)) {
    const file = path.resolve(context, id);
    const hash = await hashFile(file);
    // A module webpack generated itself (no file behind it) cannot go stale; anything else
    // unreadable makes the bundle uncacheable.
    if (hash === null) {
      if (id.startsWith('./') || id.startsWith('../')) return { code: bundle.code, fromCache: false };
      continue;
    }
    files[file] = hash;
  }
  // The bundler writes the entry module itself: its version is part of the key.
  for (const file of [options.workflowsPath, ...interceptorModules, require.resolve('@temporalio/worker/package.json')])
    files[file] ??= (await hashFile(file)) ?? '';
  const entry: CachedBundle = {
    version: 1,
    workflowsPath: options.workflowsPath,
    ...(interceptorModules.length > 0 ? { interceptorModules } : {}),
    files,
    code: bundle.code,
  };
  await writeCached(cacheFile, entry).catch((error: unknown) => {
    options.logger.debug('workflow bundle not cached', { cacheFile, error: String(error) });
  });
  return { code: bundle.code, fromCache: false };
}

/** The ids of the modules in a webpack development bundle (`/***\/ "./path"` headers). */
export function bundledModuleIds(code: string): string[] {
  return [...code.matchAll(/^\/\*\*\*\/ "([^"\n]+)"$/gm)].map((match) => match[1]!);
}

async function readCached(cacheFile: string, workflowsPath: string, interceptorModules: string[]): Promise<string | null> {
  let entry: CachedBundle;
  try {
    entry = JSON.parse(await readFile(cacheFile, 'utf8')) as CachedBundle;
  } catch {
    return null;
  }
  if (entry.version !== 1 || entry.workflowsPath !== workflowsPath || typeof entry.code !== 'string') return null;
  if ((entry.interceptorModules ?? []).join('\n') !== interceptorModules.join('\n')) return null;
  const checks = await Promise.all(Object.entries(entry.files).map(async ([file, hash]) => (await hashFile(file)) === hash));
  return checks.every(Boolean) ? entry.code : null;
}

async function writeCached(cacheFile: string, entry: CachedBundle): Promise<void> {
  await mkdir(path.dirname(cacheFile), { recursive: true });
  const temporary = `${cacheFile}.${randomUUID()}.tmp`;
  try {
    await writeFile(temporary, JSON.stringify(entry));
    await rename(temporary, cacheFile);
  } finally {
    await rm(temporary, { force: true });
  }
}

async function hashFile(file: string): Promise<string | null> {
  try {
    return createHash('sha256')
      .update(await readFile(file))
      .digest('base64url');
  } catch {
    return null;
  }
}
