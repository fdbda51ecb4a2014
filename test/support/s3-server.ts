import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { constants, openSync, closeSync } from 'node:fs';
import { access, mkdir, mkdtemp, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createLogger } from '../../config/logger.ts';

export type ProvidedS3 = { endpoint: string; region: string; accessKeyId: string; secretAccessKey: string };

declare module 'vitest' {
  export interface ProvidedContext {
    s3: ProvidedS3;
  }
}

/** moto's standalone server from PyPI; pinned so every run tests against the same S3 emulation. */
export const motoRequirement = 'moto[server]==5.2.5';

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const motoDir = path.join(projectRoot, '.tools', 'moto');
const venvDir = path.join(motoDir, 'venv');
const motoServerPath = path.join(venvDir, 'bin', 'moto_server');

const venvTimeoutMs = 60_000;
const pipTimeoutMs = 10 * 60_000;
const readyTimeoutMs = 60_000;
const stopGraceMs = 5_000;
const portAttempts = 5;

let installing: Promise<string> | undefined;

/**
 * The `moto_server` executable in `.tools/moto/venv`, installed with pip on first use. Every
 * installer builds a private staging venv and renames it into place: rename is atomic, so a
 * concurrent installer or reader sees either no venv or a complete one.
 */
export function ensureMotoServer(): Promise<string> {
  installing ??= locateOrInstall().catch((error: unknown) => {
    installing = undefined;
    throw error;
  });
  return installing;
}

/**
 * One S3-compatible server per test run: TEST_S3_ENDPOINT reuses a running one (credentials
 * from TEST_S3_ACCESS_KEY_ID / TEST_S3_SECRET_ACCESS_KEY, region TEST_S3_REGION); otherwise a
 * moto server on a free loopback port, logging to a file under the OS temp dir.
 */
export async function startTestS3(): Promise<{ provided: ProvidedS3; stop: () => Promise<void> }> {
  const existing = process.env.TEST_S3_ENDPOINT;
  if (existing) {
    return {
      provided: {
        endpoint: existing,
        region: process.env.TEST_S3_REGION || 'us-east-1',
        accessKeyId: process.env.TEST_S3_ACCESS_KEY_ID || 'test',
        secretAccessKey: process.env.TEST_S3_SECRET_ACCESS_KEY || 'test',
      },
      stop: async () => {},
    };
  }

  const executable = await ensureMotoServer();
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const logFile = path.join(tmpdir(), `moto-s3-${process.pid}-${port}.log`);
    const child = spawnMoto(executable, port, logFile);
    const endpoint = `http://127.0.0.1:${port}`;
    const outcome = await waitUntilReady(child, endpoint);
    if (outcome === 'ready') {
      return {
        // moto accepts any credentials; these match the TEST_S3_* defaults.
        provided: { endpoint, region: 'us-east-1', accessKeyId: 'test', secretAccessKey: 'test' },
        stop: () => stopProcess(child),
      };
    }
    await stopProcess(child);
    const output = await readLog(logFile);
    // Another process may take the port between our probe and moto's bind: try another one.
    if (outcome === 'exited' && /address already in use|EADDRINUSE/i.test(output) && attempt < portAttempts) continue;
    const what = outcome === 'exited' ? `exited with code ${child.exitCode ?? child.signalCode}` : `did not answer HTTP within ${readyTimeoutMs / 1000} s`;
    throw new Error(`moto_server on port ${port} ${what} (log: ${logFile})\n${lastLines(output, 40)}`);
  }
}

async function locateOrInstall(): Promise<string> {
  if (await isExecutable(motoServerPath)) return motoServerPath;
  try {
    await install();
  } catch (error) {
    throw new Error(motoUnavailableMessage((error as Error).message), { cause: error });
  }
  return motoServerPath;
}

function motoUnavailableMessage(reason: string): string {
  return [
    'No S3-compatible server for the tests. Any one of these fixes it:',
    `  - make Python 3 with venv and pip available, and PyPI reachable (the tests run \`pip install ${motoRequirement}\` into .tools/moto/);`,
    '  - delete .tools/moto if it holds a broken install, and run the tests again;',
    '  - or set TEST_S3_ENDPOINT (with TEST_S3_ACCESS_KEY_ID, TEST_S3_SECRET_ACCESS_KEY, TEST_S3_REGION) to an existing S3-compatible server.',
    `Cause: ${reason}`,
  ].join('\n');
}

async function install(): Promise<void> {
  const run = promisify(execFile);
  await mkdir(motoDir, { recursive: true });
  const staging = await mkdtemp(path.join(motoDir, 'staging-'));
  try {
    createLogger({ level: 'info' }).info('installing moto (S3 server for the tests) from PyPI, once', {
      requirement: motoRequirement,
      into: path.relative(projectRoot, venvDir),
    });
    await run('python3', ['-m', 'venv', staging], { timeout: venvTimeoutMs });
    const python = path.join(staging, 'bin', 'python');
    await run(python, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', motoRequirement], {
      timeout: pipTimeoutMs,
      maxBuffer: 16 * 1024 * 1024,
    });
    // Check the entry point before publishing: through the interpreter, since its shebang is about to change.
    await run(python, [path.join(staging, 'bin', 'moto_server'), '--help'], { timeout: 60_000 });
    await relocateScripts(path.join(staging, 'bin'), staging, venvDir);
    try {
      await rename(staging, venvDir);
    } catch (error) {
      // A concurrent installer won the race: its venv is as good as ours.
      const code = (error as NodeJS.ErrnoException).code;
      if ((code === 'ENOTEMPTY' || code === 'EEXIST') && (await isExecutable(motoServerPath))) return;
      throw error;
    }
  } catch (error) {
    // execFile errors carry the tool's stderr, which says why (no network, no venv module, ...).
    const stderr = (error as { stderr?: string }).stderr?.trim();
    throw new Error(stderr ? `${(error as Error).message.split('\n')[0]}: ${lastLines(stderr, 5)}` : (error as Error).message, { cause: error });
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/**
 * pip writes the venv's absolute path into the shebang of every script it installs, so a venv
 * built in a staging dir must have those paths rewritten before it moves. The interpreter
 * itself is a symlink that finds its venv from pyvenv.cfg next to it, wherever that is.
 */
async function relocateScripts(binDir: string, from: string, to: string): Promise<void> {
  for (const entry of await readdir(binDir, { withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(binDir, entry.name);
    const text = await readFile(file, 'utf8');
    if (text.includes(from)) await writeFile(file, text.replaceAll(from, to));
  }
}

function spawnMoto(executable: string, port: number, logFile: string): ChildProcess {
  const log = openSync(logFile, 'w');
  try {
    return spawn(executable, ['-H', '127.0.0.1', '-p', String(port)], {
      stdio: ['ignore', log, log],
      env: { ...process.env, PYTHONUNBUFFERED: '1' },
    });
  } finally {
    closeSync(log);
  }
}

/** Polls with HTTP GET until moto answers; 'exited' when the process dies first. */
async function waitUntilReady(child: ChildProcess, endpoint: string): Promise<'ready' | 'exited' | 'timeout'> {
  let exited = child.exitCode !== null || child.signalCode !== null;
  const onExit = () => (exited = true);
  child.once('exit', onExit);
  child.once('error', onExit);
  try {
    const deadline = Date.now() + readyTimeoutMs;
    while (Date.now() < deadline) {
      if (exited) return 'exited';
      try {
        const response = await fetch(endpoint, { signal: AbortSignal.timeout(2_000) });
        await response.body?.cancel();
        return 'ready';
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    return exited ? 'exited' : 'timeout';
  } finally {
    child.off('exit', onExit);
    child.off('error', onExit);
  }
}

/** SIGTERM, then SIGKILL if it is still running after the grace period. */
async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const graceOver = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), stopGraceMs)));
  const outcome = await Promise.race([exited, graceOver]);
  clearTimeout(timer);
  if (outcome === 'timeout') {
    child.kill('SIGKILL');
    await exited;
  }
}

/** A port the OS just handed out on loopback; moto binds it a moment later (see the retry above). */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port assigned'))));
    });
  });
}

async function isExecutable(file: string): Promise<boolean> {
  try {
    await access(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

async function readLog(file: string): Promise<string> {
  return readFile(file, 'utf8').catch(() => '');
}

function lastLines(text: string, count: number): string {
  return text.trim().split('\n').slice(-count).join('\n');
}
