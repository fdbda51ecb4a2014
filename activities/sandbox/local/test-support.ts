import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { createLocalSandboxDriver, type LocalSandboxDriver, type LocalSandboxDriverOptions } from './driver.ts';

/** Shared setup for the driver's tests: real bwrap, a throwaway data dir, local HTTP servers. */

export type TestDriver = { driver: LocalSandboxDriver; dataDir: string; cleanup(): Promise<void> };

/** `reuseDataDir`: a second driver over the same workspaces (a restarted worker). */
export async function createTestDriver(options: Omit<LocalSandboxDriverOptions, 'dataDir'> = {}, reuseDataDir?: string): Promise<TestDriver> {
  const dataDir = reuseDataDir ?? (await mkdtemp(path.join(tmpdir(), 'sandbox-driver-test-')));
  // The sandbox user (nobody, when tests run as root) must be able to pass through.
  await chmod(dataDir, 0o711);
  const driver = createLocalSandboxDriver({ ...options, dataDir });
  return {
    driver,
    dataDir,
    cleanup: async () => {
      await driver.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export async function startHttpServer(host: string, body: string): Promise<{ port: number; close(): Promise<void> }> {
  const server: Server = createServer((_req, res) => res.end(body));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  return {
    port: address.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
