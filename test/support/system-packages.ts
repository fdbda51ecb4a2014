import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Debian packages the sandbox tests drive for real: the binary each provides, by package. */
const PACKAGES: Record<string, string> = { bubblewrap: '/usr/bin/bwrap', socat: '/usr/bin/socat', chromium: '/usr/bin/chromium' };

/**
 * Installs the sandbox's system tools on first use, as the test setup does for the Temporal CLI
 * and the S3 server: on a Debian machine where we are root, `apt-get install` (after one
 * `apt-get update`); elsewhere an error naming the packages to install.
 */
export async function ensureSandboxPackages(): Promise<void> {
  const missing = Object.entries(PACKAGES).filter(([, binary]) => !existsSync(binary)).map(([name]) => name);
  if (missing.length === 0) return;
  const canInstall = process.getuid?.() === 0 && existsSync('/usr/bin/apt-get');
  if (!canInstall) {
    throw new Error(`The sandbox tests need ${missing.join(', ')}; install them (Debian: sudo apt-get install -y ${missing.join(' ')}) and run the tests again`);
  }
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  try {
    await run('apt-get', ['update', '-qq'], { env, timeout: 10 * 60_000, maxBuffer: 64 * 1024 * 1024 });
    await run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...missing], { env, timeout: 20 * 60_000, maxBuffer: 64 * 1024 * 1024 });
  } catch (error) {
    throw new Error(`Installing ${missing.join(', ')} with apt-get failed: ${(error as Error).message.slice(0, 2000)}`);
  }
  const still = Object.entries(PACKAGES).filter(([, binary]) => !existsSync(binary)).map(([name]) => name);
  if (still.length > 0) throw new Error(`apt-get finished but ${still.join(', ')} is still missing`);
}
