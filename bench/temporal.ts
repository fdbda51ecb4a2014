import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLogger, type Logger } from '../config/logger.ts';
import { startDevServer } from '../temporal/dev-server.ts';
import { installWorkerRuntime } from '../temporal/worker.ts';

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * A Temporal dev server for one benchmark (free ports, in memory, headless) with a fresh data
 * dir, and the SDK's logs routed to `logger` (the Runtime is per process: installed once).
 */
export async function startBenchTemporal(name: string, logger: Logger) {
  try {
    installWorkerRuntime(logger);
  } catch {
    // already installed by an earlier bench in this process
  }
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `svc-bench-${name}-`));
  const devServer = await startDevServer({
    projectRoot,
    dataDir,
    cliPath: process.env.TEMPORAL_CLI_PATH || undefined,
    logger: createLogger({ level: 'warn' }),
    overrides: { port: 0, inMemory: true, headless: true },
  });
  return {
    devServer,
    dataDir,
    async stop() {
      await devServer.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
