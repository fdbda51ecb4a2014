import { BROWSER_PACKAGES, installMissingPackages, SANDBOX_PACKAGES } from '../../scripts/system-packages.ts';

/**
 * Installs the sandbox's system tools on first use, as the test setup does for the Temporal CLI
 * and the S3 server (scripts/system-packages.ts, which `npm start` uses too), with Chromium for
 * the browser tests; a machine where that cannot happen gets an error naming the command.
 */
/**
 * The egress test host (network namespaces) and sized workspaces (ext4 images) need these too, and
 * the metrics test a real Prometheus that scrapes the service.
 */
const TEST_PACKAGES: Readonly<Record<string, string>> = { iproute2: '/usr/sbin/ip', e2fsprogs: '/usr/sbin/mkfs.ext4', prometheus: '/usr/bin/prometheus' };

export async function ensureTestPackages(): Promise<void> {
  const outcome = await installMissingPackages({ ...SANDBOX_PACKAGES, ...BROWSER_PACKAGES, ...TEST_PACKAGES });
  if (outcome.kind !== 'not_installed') return;
  const detail = outcome.detail ? `: ${outcome.detail}` : '';
  throw new Error(
    `The sandbox tests need ${outcome.packages.join(', ')} (${outcome.reason}${detail}); install them (Debian: ${outcome.command}) and run the tests again`,
  );
}
