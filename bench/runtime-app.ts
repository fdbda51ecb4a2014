import { randomUUID } from 'node:crypto';
import type { PlatformToolHandler } from '../activities/platform-tools/registry.ts';
import { createApp } from '../api/app.ts';
import type { AppDeps } from '../api/deps.ts';
import { createLogger } from '../config/logger.ts';
import { parseSettings } from '../config/settings.ts';
import { openDatabase, type DatabaseHandle } from '../db/client.ts';
import { migrateDatabase } from '../db/migrate.ts';
import { runWorkflowId } from '../domain/runs/workflow.ts';
import { createAppDeps } from '../scripts/app-deps.ts';
import { createRuntime, type Runtime } from '../scripts/runtime.ts';
import type { RunStarter } from '../services/kernel/run-starter.ts';
import {
  INSTANT_MODEL_API_KEY,
  startInstantModelServer,
  VENDOR_A_BASE_URL_ENV,
  type InstantModelServer,
  type InstantModelServerOptions,
} from './instant-model-server.ts';
import { apiFor, REQUEST_LIMITS_OFF, withBenchDatabase } from './support.ts';
import { startBenchTemporal } from './temporal.ts';

export type BenchRuntimeApp = {
  api: Awaited<ReturnType<typeof apiFor>>;
  /** `/v1/projects/<id>` */
  projectPath: string;
  runtime: Runtime;
  /** The handle the API and the worker share. */
  database: DatabaseHandle;
  /** Creates a session and waits for its first run's workflow to end; the ms it took. */
  timedSession: (agentId: string, message: string) => Promise<number>;
  /** The app `api` drives (to serve it over HTTP) and its dependencies (event tail, live-output bus). */
  app: ReturnType<typeof createApp>;
  deps: AppDeps;
  /** The instant model the runtime calls. */
  model: InstantModelServer;
  /** The bench database's URL. */
  databaseUrl: string;
  /** The Temporal dev server the runtime uses (a bench's bare side runs on it too). */
  temporal: { address: string; namespace: string };
};

/**
 * The whole service for a benchmark: API (in-process `app.request`), the real worker on a
 * Temporal dev server, the machine's PostgreSQL in a fresh database, and the instant model as
 * provider `p-a` with preset `m-a`. `body` runs against it; everything is torn down after.
 */
export async function withBenchRuntimeApp<T>(
  name: string,
  options: { env?: Record<string, string>; platformTools?: Record<string, PlatformToolHandler>; model?: InstantModelServerOptions },
  body: (app: BenchRuntimeApp) => Promise<T>,
): Promise<T> {
  const logger = createLogger({ level: 'error' });
  const temporal = await startBenchTemporal(name, logger);
  const model = await startInstantModelServer(options.model);
  try {
    return await withBenchDatabase(async (url) => {
      const migrations = await openDatabase({ driver: 'postgres', url, maxConnections: 1 });
      await migrateDatabase(migrations);
      await migrations.close();
      const database = await openDatabase({ driver: 'postgres', url, maxConnections: 10 });
      const settings = parseSettings({
        SVC_DATA_DIR: temporal.dataDir,
        SVC_LOG_LEVEL: 'error',
        [VENDOR_A_BASE_URL_ENV]: model.baseUrl,
        ...REQUEST_LIMITS_OFF,
        ...options.env,
      });
      let target: RunStarter | null = null;
      const deps = await createAppDeps({
        settings,
        logger,
        database,
        runStarter: {
          start: (input) => target!.start(input),
          requestCancellation: (runId) => target!.requestCancellation(runId),
          notify: (runId, signal) => target!.notify(runId, signal),
        },
      });
      const runtime = await createRuntime({
        settings,
        logger,
        database,
        dependencies: { keyring: deps.keyring, deploymentPresets: deps.deploymentPresets, sandboxSnapshots: deps.sandboxSnapshots },
        temporal: { address: temporal.devServer.address, namespace: temporal.devServer.namespace, taskQueue: `bench-${name}-${randomUUID()}` },
        platformTools: options.platformTools ?? {},
      });
      target = runtime.runStarter;
      const running = runtime.run();
      try {
        const app = createApp(deps);
        const api = await apiFor(app, `${name} bench`);
        const projectPath = `/v1/projects/${api.projectId}`;
        const provider = await api.call('POST', `${projectPath}/model-providers`, {
          key: 'p-a',
          displayName: 'vendor_a',
          providerType: 'vendor_a',
          apiKey: INSTANT_MODEL_API_KEY,
        });
        await api.call('POST', `${projectPath}/model-presets`, {
          key: 'm-a',
          displayName: 'vendor_a',
          providerId: provider.id,
          model: 'vendor_a/gpt-5.1',
          routing: {},
        });
        const timedSession = async (agentId: string, message: string) => {
          const began = performance.now();
          const session = await api.call('POST', `${projectPath}/sessions`, { agentId, initialMessage: message });
          const state = await runtime.client.client.workflow.getHandle(runWorkflowId(session.latestRunId)).result();
          if (state !== 'completed') throw new Error(`run ${session.latestRunId} settled ${String(state)}`);
          return performance.now() - began;
        };
        return await body({
          api,
          projectPath,
          runtime,
          database,
          timedSession,
          app,
          deps,
          model,
          databaseUrl: url,
          temporal: { address: temporal.devServer.address, namespace: temporal.devServer.namespace },
        });
      } finally {
        await runtime.shutdown();
        await running.catch(() => {});
        await database.close();
      }
    });
  } finally {
    await model.close();
    await temporal.stop();
  }
}
