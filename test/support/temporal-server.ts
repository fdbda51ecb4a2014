import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLogger } from '../../config/logger.ts';
import { startDevServer } from '../../temporal/dev-server.ts';

export type ProvidedTemporal = { address: string; namespace: string };

declare module 'vitest' {
  export interface ProvidedContext {
    temporal: ProvidedTemporal;
  }
}

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * One real Temporal dev server per test run, started by the same launcher as `npm start` (so
 * the suite also proves temporal-dev.yaml works), on free ports, in memory and headless.
 * TEST_TEMPORAL_ADDRESS reuses a server that is already running (namespace TEST_TEMPORAL_NAMESPACE
 * or `default`); it must carry the search attributes of temporal-dev.yaml.
 */
export async function startTestTemporal(): Promise<{ provided: ProvidedTemporal; stop: () => Promise<void> }> {
  const existing = process.env.TEST_TEMPORAL_ADDRESS;
  if (existing) {
    return { provided: { address: existing, namespace: process.env.TEST_TEMPORAL_NAMESPACE ?? 'default' }, stop: async () => {} };
  }
  const server = await startDevServer({
    projectRoot,
    dataDir: path.join(projectRoot, '.test-data', 'temporal'),
    cliPath: process.env.TEMPORAL_CLI_PATH || undefined,
    logger: createLogger({ level: 'warn' }),
    overrides: { port: 0, inMemory: true, headless: true },
  });
  return { provided: { address: server.address, namespace: server.namespace }, stop: () => server.stop() };
}
