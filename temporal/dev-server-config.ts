import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import * as v from 'valibot';
import { parse as parseYaml } from 'yaml';

/**
 * temporal-dev.yaml: the settings of the local Temporal dev server, validated once here. The
 * argv builders are pure so the exact command line is unit-tested without starting a server.
 */

export const devServerConfigFileName = 'temporal-dev.yaml';

const identifier = v.pipe(v.string(), v.regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an identifier'));
const dynamicConfigKey = v.pipe(v.string(), v.regex(/^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/, 'must be a dotted identifier'));
const listenPort = v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(65535));

/** The value types `temporal server start-dev --search-attribute` accepts. */
export const searchAttributeTypes = ['Text', 'Keyword', 'Int', 'Double', 'Bool', 'Datetime', 'KeywordList'] as const;

export const DevServerConfig = v.strictObject({
  namespace: v.pipe(v.string(), v.nonEmpty()),
  ip: v.pipe(v.string(), v.nonEmpty()),
  port: listenPort,
  uiPort: listenPort,
  httpPort: v.optional(listenPort),
  metricsPort: v.optional(listenPort),
  databaseFile: v.pipe(v.string(), v.nonEmpty()),
  // `--sqlite-pragma`: the CLI accepts journal_mode and synchronous only.
  sqlitePragmas: v.optional(
    v.strictObject({
      journal_mode: v.optional(v.picklist(['delete', 'truncate', 'persist', 'memory', 'wal', 'off'])),
      synchronous: v.optional(v.picklist(['off', 'normal', 'full', 'extra'])),
    }),
    {},
  ),
  searchAttributes: v.optional(v.record(identifier, v.picklist(searchAttributeTypes)), {}),
  dynamicConfig: v.optional(
    v.record(
      dynamicConfigKey,
      v.pipe(
        v.unknown(),
        // YAML `key:` with nothing after it is null: almost certainly a mistake, not a value.
        v.check((value) => value !== null && value !== undefined, 'must have a value'),
      ),
    ),
    {},
  ),
});
export type DevServerConfig = v.InferOutput<typeof DevServerConfig>;

export class DevServerConfigError extends Error {
  override name = 'DevServerConfigError';
}

export function devServerConfigPath(projectRoot: string): string {
  return path.join(projectRoot, devServerConfigFileName);
}

/** Reads and validates temporal-dev.yaml; a bad file throws an error naming the file and every bad field. */
export async function loadDevServerConfig(file: string): Promise<DevServerConfig> {
  let raw: unknown;
  try {
    raw = parseYaml(await readFile(file, 'utf8'));
  } catch (error) {
    throw new DevServerConfigError(`Cannot read ${file}: ${(error as Error).message}`, { cause: error });
  }
  return parseDevServerConfig(raw, file);
}

export function parseDevServerConfig(raw: unknown, source = devServerConfigFileName): DevServerConfig {
  const result = v.safeParse(DevServerConfig, raw);
  if (!result.success) {
    const problems = result.issues.map((issue) => {
      const key = issue.path?.map((item) => String(item.key)).join('.') ?? '(file)';
      return `${key}: ${issue.message}`;
    });
    throw new DevServerConfigError(`Invalid ${source}:\n  ${problems.join('\n  ')}`);
  }
  return result.output;
}

/** Where and how one dev server process listens; resolved by the launcher from the config and its overrides. */
export type DevServerListen = {
  port: number;
  /** null: no Web UI (`--headless`). */
  uiPort: number | null;
  /** null: let the CLI pick. */
  httpPort: number | null;
  /** null: let the CLI pick. */
  metricsPort: number | null;
  /** Absolute SQLite path, or null to keep state in memory (tests). */
  databasePath: string | null;
};

/** The full `temporal server start-dev` argv (without the executable). */
export function devServerArgs(config: DevServerConfig, listen: DevServerListen): string[] {
  const args = ['server', 'start-dev', '--ip', config.ip, '--port', String(listen.port), '--namespace', config.namespace];
  if (listen.uiPort === null) args.push('--headless');
  else args.push('--ui-port', String(listen.uiPort));
  if (listen.databasePath !== null) args.push('--db-filename', listen.databasePath, ...sqlitePragmaArgs(config));
  args.push(...devServerExtraArgs(config, listen), '--log-level', 'warn');
  return args;
}

/** `--sqlite-pragma` flags for a persistent (file) database; meaningless in memory. */
export function sqlitePragmaArgs(config: DevServerConfig): string[] {
  return Object.entries(config.sqlitePragmas).flatMap(([pragma, value]) => (value === undefined ? [] : ['--sqlite-pragma', `${pragma}=${value}`]));
}

/**
 * The flags the Temporal SDK's own dev-server launcher does not model (it handles ip, ports,
 * namespace, UI and database itself); passed as its `extraArgs` when the SDK downloads the CLI.
 */
export function devServerExtraArgs(config: DevServerConfig, listen: Pick<DevServerListen, 'httpPort' | 'metricsPort'>): string[] {
  const args: string[] = [];
  if (listen.httpPort !== null) args.push('--http-port', String(listen.httpPort));
  if (listen.metricsPort !== null) args.push('--metrics-port', String(listen.metricsPort));
  for (const [name, type] of Object.entries(config.searchAttributes)) {
    args.push('--search-attribute', `${name}=${type}`);
  }
  for (const [key, value] of Object.entries(config.dynamicConfig)) {
    args.push('--dynamic-config-value', `${key}=${JSON.stringify(value)}`);
  }
  return args;
}
