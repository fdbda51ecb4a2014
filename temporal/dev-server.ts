import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { chmod, mkdir, readFile } from 'node:fs/promises';
import * as net from 'node:net';
import * as path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { Connection } from '@temporalio/client';
import type { Logger } from '../config/logger.ts';
import { locateTemporalCli, TemporalCliError, temporalCliUnavailableMessage, type TemporalCli } from './cli.ts';
import {
  devServerArgs,
  devServerConfigPath,
  devServerExtraArgs,
  sqlitePragmaArgs,
  loadDevServerConfig,
  type DevServerConfig,
  type DevServerListen,
} from './dev-server-config.ts';

/**
 * Starts (or reuses) the local Temporal dev server described by temporal-dev.yaml, for
 * `npm start`, `npm run worker` without TEMPORAL_ADDRESS, and the test suite.
 */

export type DevServerOverrides = {
  /** 0: pick free ports for every listener (frontend, UI, HTTP, metrics), so parallel servers never collide. */
  port?: number;
  /** 0: pick a free port. */
  uiPort?: number;
  /** Keep state in memory instead of `<dataDir>/<databaseFile>` (tests). */
  inMemory?: boolean;
  /** No Web UI. */
  headless?: boolean;
};

export type StartDevServerOptions = {
  projectRoot: string;
  /** settings.dataDir: holds the SQLite file and temporal-dev.log. */
  dataDir: string;
  /** settings.temporal.cliPath (TEMPORAL_CLI_PATH). */
  cliPath?: string | undefined;
  logger: Logger;
  overrides?: DevServerOverrides;
};

export type DevServer = {
  /** host:port of the gRPC frontend. */
  address: string;
  namespace: string;
  /** The Web UI, or null when headless or unknown. */
  uiUrl: string | null;
  /** True when a server was already answering at the configured address; stop() then leaves it alone. */
  reused: boolean;
  stop(): Promise<void>;
};

export class DevServerError extends Error {
  override name = 'DevServerError';
}

const readyTimeoutMs = 60_000;
const stopGraceMs = 10_000;

/**
 * Returns a running dev server: the one already answering at the configured address, or a new
 * child process of the CLI (logging to `<dataDir>/temporal-dev.log`) once its frontend answers
 * and the namespace exists. Fails with a message naming the port and temporal-dev.yaml when the
 * port belongs to something that is not Temporal.
 */
export async function startDevServer(options: StartDevServerOptions): Promise<DevServer> {
  const { projectRoot, dataDir, logger } = options;
  const overrides = options.overrides ?? {};
  const configFile = devServerConfigPath(projectRoot);
  const config = await loadDevServerConfig(configFile);
  const listen = await resolveListen(config, overrides, dataDir);
  const address = `${urlHost(config.ip)}:${listen.port}`;

  // Free ports were just picked, so nothing can be running there yet.
  if (overrides.port !== 0) {
    const existing = await reuseExisting({ config, configFile, address, port: listen.port, uiPort: listen.uiPort, logger });
    if (existing) return existing;
  }

  // The data dir is this user's alone (issue 28).
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const server = await launch();
  await restrictDatabaseFiles(listen.databasePath);
  return server;

  async function launch(): Promise<DevServer> {
    const cli = await locateTemporalCli({ cliPath: options.cliPath, projectRoot, logger });
    const uiUrl = listen.uiPort === null ? null : `http://${urlHost(config.ip)}:${listen.uiPort}`;
    if (cli.kind === 'sdk-download') return startWithSdkDownload({ cli, config, listen, address, uiUrl, logger });
    const spawn = (at: DevServerListen) => {
      const host = urlHost(config.ip);
      const atUi = at.uiPort === null ? null : `http://${host}:${at.uiPort}`;
      return spawnCli({
        cliPath: cli.path,
        cliSource: cli.source,
        config,
        configFile,
        listen: at,
        address: `${host}:${at.port}`,
        uiUrl: atUi,
        dataDir,
        logger,
      });
    };
    if (overrides.port !== 0) return spawn(listen);
    // Ports picked as free can be taken by another process before the server binds them (two
    // test runs at once): pick again and retry a few times.
    for (let attempt = 1; ; attempt++) {
      try {
        return await spawn(attempt === 1 ? listen : await resolveListen(config, overrides, dataDir));
      } catch (error) {
        if (attempt >= 3 || !(error instanceof DevServerError)) throw error;
        logger.warn('temporal dev server did not start on free ports; retrying with new ones', { attempt });
      }
    }
  }
}

/**
 * The server's SQLite files lose group and other access once it runs (issue 28). SQLite gives the
 * -wal and -shm files it creates later the database file's mode. (The file is not made first:
 * the CLI may decide from its existence whether to set up the schema.)
 */
async function restrictDatabaseFiles(databasePath: string | null): Promise<void> {
  if (databasePath === null) return;
  for (const file of [databasePath, `${databasePath}-wal`, `${databasePath}-shm`, `${databasePath}-journal`]) {
    await chmod(file, 0o600).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
  }
}

async function resolveListen(config: DevServerConfig, overrides: DevServerOverrides, dataDir: string): Promise<DevServerListen> {
  const isolated = overrides.port === 0;
  const pick = async (requested: number) => (requested === 0 ? freePort(config.ip) : requested);
  const optional = async (configured: number | undefined) => (configured === undefined ? null : pick(isolated ? 0 : configured));
  return {
    port: await pick(overrides.port ?? config.port),
    uiPort: overrides.headless ? null : await pick(overrides.uiPort ?? (isolated ? 0 : config.uiPort)),
    httpPort: await optional(config.httpPort),
    metricsPort: await optional(config.metricsPort),
    databasePath: overrides.inMemory ? null : path.resolve(dataDir, config.databaseFile),
  };
}

async function reuseExisting(input: {
  config: DevServerConfig;
  configFile: string;
  address: string;
  port: number;
  uiPort: number | null;
  logger: Logger;
}): Promise<DevServer | null> {
  const { config, configFile, address, port, uiPort, logger } = input;
  if (!(await isListening(config.ip, port))) return null;
  const connection = await connectIfTemporal(address, 5_000);
  if (!connection) {
    throw new DevServerError(
      `Port ${port} on ${config.ip} is in use by something that is not a Temporal frontend. ` +
        `Stop that process, change \`port\` in ${configFile}, or set TEMPORAL_ADDRESS to an existing Temporal server.`,
    );
  }
  try {
    await checkReusedServer(connection, config, address, logger);
  } finally {
    await connection.close();
  }
  // Whether that server has a UI is not ours to know; report one only if the port answers.
  const uiUrl = uiPort !== null && (await isListening(config.ip, uiPort)) ? `http://${urlHost(config.ip)}:${uiPort}` : null;
  logger.info('reusing the temporal server already running', { address, namespace: config.namespace, uiUrl });
  return { address, namespace: config.namespace, uiUrl, reused: true, stop: async () => {} };
}

/** A reused server was not started from our yaml: a missing namespace is fatal, missing search attributes are worth a warning. */
async function checkReusedServer(connection: Connection, config: DevServerConfig, address: string, logger: Logger): Promise<void> {
  try {
    await connection.workflowService.describeNamespace({ namespace: config.namespace });
  } catch (error) {
    throw new DevServerError(
      `The Temporal server at ${address} has no namespace "${config.namespace}". ` +
        `Create it (temporal operator namespace create --address ${address} ${config.namespace}) or stop that server.`,
      { cause: error },
    );
  }
  const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace: config.namespace });
  const missing = Object.entries(config.searchAttributes).filter(([name]) => !(name in customAttributes));
  if (missing.length > 0) {
    // One attribute per command: given several --name, the CLI (1.9.1, dev server) registers only the first.
    const fix = missing.map(
      ([name, type]) => `temporal operator search-attribute create --address ${address} --namespace ${config.namespace} --type ${type} --name ${name}`,
    );
    logger.warn('the reused temporal server lacks search attributes from temporal-dev.yaml; workflows that set them will fail', {
      address,
      missing: missing.map(([name]) => name),
      fix: fix.join(' && '),
    });
  }
}

async function spawnCli(input: {
  cliPath: string;
  cliSource: string;
  config: DevServerConfig;
  configFile: string;
  listen: DevServerListen;
  address: string;
  uiUrl: string | null;
  dataDir: string;
  logger: Logger;
}): Promise<DevServer> {
  const { cliPath, config, configFile, listen, address, uiUrl, logger } = input;
  const logFile = path.join(input.dataDir, 'temporal-dev.log');
  const args = devServerArgs(config, listen);
  const logFd = openSync(logFile, 'a', 0o600);
  let child: ChildProcess;
  try {
    // Own process group: Ctrl-C reaches our process only, so the worker drains before the
    // server stops; the exit hook below still takes the server down with us.
    child = spawn(cliPath, args, { stdio: ['ignore', logFd, logFd], detached: true });
  } finally {
    closeSync(logFd);
  }
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let spawnError: Error | undefined;
  child.once('error', (error) => (spawnError = error));
  const hasExited = () => spawnError !== undefined || child.exitCode !== null || child.signalCode !== null;
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      process.off('exit', killOnExit);
      if (hasExited()) return;
      child.kill('SIGTERM');
      const graceful = await Promise.race([exited.then(() => true), delay(stopGraceMs).then(() => false)]);
      if (!graceful) {
        logger.warn('temporal dev server ignored SIGTERM; killing it', { pid: child.pid });
        child.kill('SIGKILL');
        await exited;
      }
    })();
    return stopping;
  };

  const readiness = await waitUntilReady(address, config.namespace, hasExited);
  if (readiness === 'ready') {
    logger.info('temporal dev server started', { address, namespace: config.namespace, uiUrl, pid: child.pid, cli: input.cliSource, log: logFile });
    return { address, namespace: config.namespace, uiUrl, reused: false, stop };
  }
  await stop();
  if (spawnError) throw new DevServerError(`Cannot run ${cliPath}: ${spawnError.message}`, { cause: spawnError });
  if (readiness === 'exited') {
    // Another process (the API and the worker starting together) may have won the race for the port.
    const winner = await reuseExisting({ config, configFile, address, port: listen.port, uiPort: listen.uiPort, logger }).catch(() => null);
    if (winner) return winner;
    throw new DevServerError(
      `temporal server start-dev exited (${child.signalCode ?? `code ${child.exitCode}`}) before answering at ${address}. ` +
        `Check the ports in ${configFile}. Last lines of ${logFile}:\n${await tail(logFile, 20)}`,
    );
  }
  throw new DevServerError(`temporal server start-dev did not answer at ${address} within ${readyTimeoutMs / 1000} s; see ${logFile}`);
}

async function startWithSdkDownload(input: {
  cli: Extract<TemporalCli, { kind: 'sdk-download' }>;
  config: DevServerConfig;
  listen: DevServerListen;
  address: string;
  uiUrl: string | null;
  logger: Logger;
}): Promise<DevServer> {
  const { cli, config, listen, address, uiUrl, logger } = input;
  // Loaded lazily: the testing package (and its download machinery) is needed only on this route.
  const { TestWorkflowEnvironment } = await import('@temporalio/testing');
  logger.info('starting the temporal dev server through the Temporal SDK download', { downloadDir: cli.downloadDir });
  let environment: Awaited<ReturnType<typeof TestWorkflowEnvironment.createLocal>>;
  try {
    environment = await TestWorkflowEnvironment.createLocal({
      server: {
        executable: { type: 'cached-download', downloadDir: cli.downloadDir },
        ip: config.ip,
        port: listen.port,
        ui: listen.uiPort !== null,
        uiPort: listen.uiPort ?? undefined,
        namespace: config.namespace,
        dbFilename: listen.databasePath ?? undefined,
        extraArgs: [...devServerExtraArgs(config, listen), ...(listen.databasePath === null ? [] : sqlitePragmaArgs(config))],
      },
    });
  } catch (error) {
    throw new TemporalCliError(temporalCliUnavailableMessage([...cli.reasons, `Temporal SDK download failed: ${(error as Error).message}`]), {
      cause: error,
    });
  }
  logger.info('temporal dev server started', { address, namespace: config.namespace, uiUrl, cli: 'sdk-download' });
  let stopping: Promise<void> | undefined;
  return { address, namespace: config.namespace, uiUrl, reused: false, stop: () => (stopping ??= environment.teardown()) };
}

/** Polls until the frontend answers and the namespace exists, the process exits, or time runs out. */
async function waitUntilReady(address: string, namespace: string, hasExited: () => boolean): Promise<'ready' | 'exited' | 'timeout'> {
  const deadline = Date.now() + readyTimeoutMs;
  while (Date.now() < deadline) {
    if (hasExited()) return 'exited';
    const connection = await connectIfTemporal(address, 2_000);
    if (connection) {
      try {
        await connection.workflowService.describeNamespace({ namespace });
        return 'ready';
      } catch {
        // The frontend answers before the namespace registry has loaded; keep polling.
      } finally {
        await connection.close();
      }
    }
    await delay(250);
  }
  return hasExited() ? 'exited' : 'timeout';
}

/** A connection when `address` answers getSystemInfo (which ensureConnected calls), else null. */
async function connectIfTemporal(address: string, timeoutMs: number): Promise<Connection | null> {
  // Not Connection.connect: when it fails it leaves its gRPC channel open and reconnecting.
  const connection = Connection.lazy({ address, connectTimeout: timeoutMs });
  try {
    await connection.ensureConnected();
    return connection;
  } catch {
    await connection.close();
    return null;
  }
}

function isListening(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port, timeout: 1_000 });
    const finish = (listening: boolean) => {
      socket.destroy();
      resolve(listening);
    };
    socket.once('connect', () => finish(true));
    socket.once('timeout', () => finish(false));
    socket.once('error', () => finish(false));
  });
}

/** A port free on `host` right now (the dev server's listeners; the peer benchmark's processes). */
export function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen({ host, port: 0 }, () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function urlHost(ip: string): string {
  return ip.includes(':') ? `[${ip}]` : ip;
}

async function tail(file: string, lines: number): Promise<string> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text.trimEnd().split('\n').slice(-lines).join('\n');
}
