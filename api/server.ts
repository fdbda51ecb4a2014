import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import type { Logger } from '../config/logger.ts';
import type { Settings } from '../config/settings.ts';
import type { DatabaseHandle } from '../db/client.ts';
import { ensureDevelopmentTenant } from '../services/auth/development-tenant.ts';
import { systemClock, type Clock, systemContext } from '../services/service-context.ts';
import { keyringFromSettings, type CredentialKeyring } from '../services/credentials/keyring.ts';
import { createProjectEventTail, type ProjectEventTail } from '../services/background/project-event-tail.ts';
import { loadDeploymentPresets, type DeploymentPreset } from '../services/model-presets/deployment.ts';
import { loadSnapshotRegistry } from '../services/sandbox-providers/snapshots.ts';
import { createLoggingRunStarter } from '../services/runs/logging-run-starter.ts';
import type { RunStarter } from '../services/runs/run-starter.ts';
import { createApp } from './app.ts';
import type { AppDeps } from './deps.ts';

export type ApiServer = { url: string; deps: AppDeps; close(): Promise<void> };

export type ApiServerOptions = {
  settings: Settings;
  logger: Logger;
  database: DatabaseHandle;
  clock?: Clock;
  /** How committed runs reach the runtime; without one, runs wait for the worker's reconciler. */
  runStarter?: RunStarter;
  /** Already loaded by a process that also runs the worker (`npm start`); else loaded here. */
  keyring?: CredentialKeyring;
  deploymentPresets?: readonly DeploymentPreset[];
  /** The process's shared event tail when the worker runs in the same process (`npm start`). */
  eventTail?: ProjectEventTail;
};

/** Wires the API's dependencies once and serves it; `close` drains and releases them. */
export async function startApiServer(options: ApiServerOptions): Promise<ApiServer> {
  const deps = await createAppDeps(options);
  const app = createApp(deps);
  const server = await new Promise<ServerType>((resolve) => {
    const started = serve({ fetch: app.fetch, port: options.settings.port, hostname: options.settings.host }, () => resolve(started));
  });
  const address = server.address() as AddressInfo;
  const host = options.settings.host.includes(':') ? `[${options.settings.host}]` : options.settings.host;
  return {
    url: `http://${host}:${address.port}`,
    deps,
    async close() {
      await deps.eventTail.stop();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Open SSE streams would keep close() waiting forever.
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
      });
    },
  };
}

export async function createAppDeps(options: ApiServerOptions): Promise<AppDeps> {
  const { settings, logger, database } = options;
  const clock = options.clock ?? systemClock;
  // A bad presets file stops the process here, before anything starts.
  const deploymentPresets = options.deploymentPresets ?? loadDeploymentPresets(settings.deploymentPresetsFile);
  const keyring = options.keyring ?? keyringFromSettings(settings);
  const eventTail = options.eventTail ?? createProjectEventTail({ database, logger });
  await eventTail.start();
  if (settings.authMode === 'development') {
    await ensureDevelopmentTenant(systemContext({ db: database.db, logger, clock }));
  }
  const runStarter = options.runStarter ?? createLoggingRunStarter(logger);
  const sandboxSnapshots = loadSnapshotRegistry(settings.sandbox.snapshotsFile);
  return { settings, logger, database, clock, keyring, eventTail, deploymentPresets, sandboxSnapshots, runStarter };
}
