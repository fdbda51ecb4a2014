import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import type { Logger } from '../config/logger.ts';

/** Debian packages the local sandbox driver runs: the binary each provides. */
export const SANDBOX_PACKAGES: Readonly<Record<string, string>> = { bubblewrap: '/usr/bin/bwrap', socat: '/usr/bin/socat' };
/** The browser tools' Chromium (the tests drive it; `npm start` leaves it to the operator). */
export const BROWSER_PACKAGES: Readonly<Record<string, string>> = { chromium: '/usr/bin/chromium' };

/** What installing needs from the machine; tests pass their own. */
export type PackageHost = {
  exists(path: string): boolean;
  /** Runs a command to completion; rejects when it fails. */
  run(command: string, args: string[]): Promise<void>;
  isRoot: boolean;
};

export type PackageOutcome =
  | { kind: 'present' }
  | { kind: 'installed'; packages: string[] }
  | { kind: 'not_installed'; packages: string[]; reason: 'not_root' | 'no_apt_get' | 'install_failed'; command: string; detail?: string };

const execFileAsync = promisify(execFile);
const APT_ENV = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };

/** This machine: the real file system and apt-get. */
export const systemPackageHost: PackageHost = {
  exists: existsSync,
  run: async (command, args) => {
    await execFileAsync(command, args, { env: APT_ENV, timeout: 20 * 60_000, maxBuffer: 64 * 1024 * 1024 });
  },
  isRoot: process.getuid?.() === 0,
};

/**
 * Installs the missing ones of `packages` with apt-get when it can (root on a Debian machine):
 * `apt-get install` first, and `apt-get update` then a second install only if that fails (the
 * package lists of a fresh image are often empty). Otherwise it says what to run by hand.
 */
export async function installMissingPackages(packages: Readonly<Record<string, string>>, host: PackageHost = systemPackageHost): Promise<PackageOutcome> {
  const missing = () =>
    Object.entries(packages)
      .filter(([, binary]) => !host.exists(binary))
      .map(([name]) => name);
  const wanted = missing();
  if (wanted.length === 0) return { kind: 'present' };
  const command = `sudo apt-get install -y ${wanted.join(' ')}`;
  if (!host.isRoot) return { kind: 'not_installed', packages: wanted, reason: 'not_root', command };
  if (!host.exists('/usr/bin/apt-get')) return { kind: 'not_installed', packages: wanted, reason: 'no_apt_get', command };
  const install = ['install', '-y', '-qq', '--no-install-recommends', ...wanted];
  try {
    await host.run('apt-get', install).catch(async () => {
      await host.run('apt-get', ['update', '-qq']);
      await host.run('apt-get', install);
    });
  } catch (error) {
    return { kind: 'not_installed', packages: wanted, reason: 'install_failed', command, detail: (error as Error).message.slice(0, 500) };
  }
  const still = missing();
  if (still.length > 0)
    return { kind: 'not_installed', packages: still, reason: 'install_failed', command, detail: 'apt-get finished but the binaries are still missing' };
  return { kind: 'installed', packages: wanted };
}

/**
 * `npm start` and `npm run worker`: make sure the sandbox's bubblewrap and socat are there, as
 * `npm test` does. Runs beside start-up (the API and the worker do not wait for apt-get); logs
 * one line before an install and one after, or one warning with the exact command when it cannot
 * install (sandboxed runs fail until then; everything else works). Never throws.
 */
export async function ensureSandboxPackages(logger: Logger, host: PackageHost = systemPackageHost): Promise<PackageOutcome> {
  const missing = Object.entries(SANDBOX_PACKAGES)
    .filter(([, binary]) => !host.exists(binary))
    .map(([name]) => name);
  if (missing.length > 0 && host.isRoot) logger.info('installing the sandbox packages with apt-get (first start only)', { packages: missing });
  const outcome = await installMissingPackages(SANDBOX_PACKAGES, host).catch((error: unknown): PackageOutcome => ({
    kind: 'not_installed',
    packages: missing,
    reason: 'install_failed',
    command: `sudo apt-get install -y ${missing.join(' ')}`,
    detail: String(error).slice(0, 500),
  }));
  if (outcome.kind === 'installed') logger.info('sandbox packages installed', { packages: outcome.packages });
  if (outcome.kind === 'not_installed') {
    const why = { not_root: 'this process is not root', no_apt_get: 'this machine has no apt-get', install_failed: 'apt-get failed' }[outcome.reason];
    logger.warn(
      `sandboxed runs will fail until ${outcome.packages.join(' and ')} ${outcome.packages.length > 1 ? 'are' : 'is'} installed (${why}); run: ${outcome.command}`,
      {
        packages: outcome.packages,
        ...(outcome.detail ? { detail: outcome.detail } : {}),
      },
    );
  }
  return outcome;
}
