import * as path from 'node:path';
import * as v from 'valibot';

/**
 * The one reader of the environment. Every server setting is parsed here once, with valibot,
 * so a bad value stops the process at start with a message that names the variable.
 */

const booleanString = v.pipe(
  v.optional(v.picklist(['true', 'false', '1', '0', '']), 'false'),
  v.transform((value) => value === 'true' || value === '1'),
);

const portString = (fallback: string) =>
  v.pipe(
    v.optional(v.string(), fallback),
    v.transform((value) => Number(value)),
    v.integer('must be an integer port'),
    v.minValue(0),
    v.maxValue(65535),
  );

const optionalUrl = v.optional(v.pipe(v.string(), v.url('must be an absolute URL')));
const optionalNonEmpty = v.optional(v.pipe(v.string(), v.nonEmpty()));

const EnvironmentSchema = v.object({
  PORT: portString('8080'),
  HOST: v.optional(v.pipe(v.string(), v.nonEmpty()), '127.0.0.1'),
  DATABASE_URL: optionalNonEmpty,
  TEMPORAL_ADDRESS: optionalNonEmpty,
  TEMPORAL_NAMESPACE: v.optional(v.pipe(v.string(), v.nonEmpty()), 'default'),
  TEMPORAL_TASK_QUEUE: v.optional(v.pipe(v.string(), v.nonEmpty()), 'agent-runtime'),
  TEMPORAL_CLI_PATH: optionalNonEmpty,
  SVC_DATA_DIR: v.optional(v.pipe(v.string(), v.nonEmpty()), './.data'),
  SVC_ENVIRONMENT: v.optional(v.picklist(['development', 'production']), 'development'),
  SVC_AUTH_MODE: v.optional(v.picklist(['development', 'edge_proxy', 'hosted']), 'development'),
  SVC_APP_ORIGIN: v.optional(
    v.pipe(
      v.string(),
      v.url('must be an origin such as http://localhost:8080'),
      v.check((value) => new URL(value).origin === value.replace(/\/$/, ''), 'must be an origin without a path'),
      v.transform((value) => new URL(value).origin),
    ),
    'http://localhost:8080',
  ),
  SVC_CREDENTIAL_ENCRYPTION_KEY: optionalNonEmpty,
  SVC_WEBHOOKS_ALLOW_PRIVATE_NETWORK: booleanString,
  SVC_MODEL_BASE_URL_GATEWAY: optionalUrl,
  SVC_MODEL_BASE_URL_VENDOR_A: optionalUrl,
  SVC_MODEL_BASE_URL_VENDOR_B: optionalUrl,
  SVC_MODEL_BASE_URL_VENDOR_C: optionalUrl,
  SVC_DEPLOYMENT_PRESETS_FILE: optionalNonEmpty,
  SVC_SANDBOX_DRIVER: v.optional(v.picklist(['local'], 'must be local (the only sandbox driver in this release)'), 'local'),
  SVC_SANDBOX_SNAPSHOTS_FILE: optionalNonEmpty,
  SVC_PLATFORM_TOOL_MODULES: optionalNonEmpty,
  SVC_LOG_LEVEL: v.optional(v.picklist(['debug', 'info', 'warn', 'error', 'silent']), 'info'),
});

export type Settings = {
  port: number;
  host: string;
  databaseUrl: string | undefined;
  temporal: {
    address: string | undefined;
    namespace: string;
    taskQueue: string;
    cliPath: string | undefined;
  };
  dataDir: string;
  environment: 'development' | 'production';
  authMode: 'development' | 'edge_proxy' | 'hosted';
  appOrigin: string;
  credentialEncryptionKey: string | undefined;
  webhooksAllowPrivateNetwork: boolean;
  modelBaseUrls: {
    gateway: string;
    vendor_a: string;
    vendor_b: string;
    vendor_c: string;
  };
  deploymentPresetsFile: string | undefined;
  sandbox: {
    /** The driver behind every `sandbox_vendor` connection. */
    driver: 'local';
    /** JSON snapshot registry; unset = the built-in read-only view of the host's /usr. */
    snapshotsFile: string | undefined;
  };
  /**
   * SVC_PLATFORM_TOOL_MODULES, comma-separated: ES modules (paths, relative to the working
   * directory) whose exported platform tools the worker registers, or `builtin:<name>` for one
   * the service ships (activities/platform-tools/README.md).
   */
  platformToolModules: string[];
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
};

export class SettingsError extends Error {
  override name = 'SettingsError';
}

/** Parses settings from an environment map; throws SettingsError naming every bad variable. */
export function parseSettings(env: Record<string, string | undefined> = process.env): Settings {
  const result = v.safeParse(EnvironmentSchema, pickKnown(env));
  if (!result.success) {
    const problems = result.issues.map((issue) => {
      const key = issue.path?.map((item) => String(item.key)).join('.') ?? '(environment)';
      return `${key}: ${issue.message}`;
    });
    throw new SettingsError(`Invalid server settings:\n  ${problems.join('\n  ')}`);
  }
  const e = result.output;
  if (e.SVC_ENVIRONMENT === 'production') {
    if (e.SVC_WEBHOOKS_ALLOW_PRIVATE_NETWORK) {
      throw new SettingsError('SVC_WEBHOOKS_ALLOW_PRIVATE_NETWORK is refused when SVC_ENVIRONMENT=production');
    }
    if (!e.SVC_CREDENTIAL_ENCRYPTION_KEY) {
      throw new SettingsError('SVC_CREDENTIAL_ENCRYPTION_KEY is required when SVC_ENVIRONMENT=production');
    }
    if (e.SVC_AUTH_MODE === 'development') {
      throw new SettingsError('SVC_AUTH_MODE=development is refused when SVC_ENVIRONMENT=production');
    }
  }
  if (e.SVC_AUTH_MODE !== 'development') {
    // The foundation ships development mode only; the auth provider interface is where
    // edge-proxy and hosted sign-in plug in (see api/middleware/auth.ts).
    throw new SettingsError(`SVC_AUTH_MODE=${e.SVC_AUTH_MODE} is not available in this release; use development`);
  }
  return {
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    temporal: {
      address: e.TEMPORAL_ADDRESS,
      namespace: e.TEMPORAL_NAMESPACE,
      taskQueue: e.TEMPORAL_TASK_QUEUE,
      cliPath: e.TEMPORAL_CLI_PATH,
    },
    dataDir: path.resolve(e.SVC_DATA_DIR),
    environment: e.SVC_ENVIRONMENT,
    authMode: e.SVC_AUTH_MODE,
    appOrigin: e.SVC_APP_ORIGIN,
    credentialEncryptionKey: e.SVC_CREDENTIAL_ENCRYPTION_KEY,
    webhooksAllowPrivateNetwork: e.SVC_WEBHOOKS_ALLOW_PRIVATE_NETWORK,
    modelBaseUrls: {
      gateway: e.SVC_MODEL_BASE_URL_GATEWAY ?? 'https://openrouter.ai/api/v1',
      vendor_a: e.SVC_MODEL_BASE_URL_VENDOR_A ?? 'https://api.openai.com/v1',
      vendor_b: e.SVC_MODEL_BASE_URL_VENDOR_B ?? 'https://api.anthropic.com',
      vendor_c: e.SVC_MODEL_BASE_URL_VENDOR_C ?? 'https://generativelanguage.googleapis.com/v1beta',
    },
    deploymentPresetsFile: e.SVC_DEPLOYMENT_PRESETS_FILE,
    sandbox: { driver: e.SVC_SANDBOX_DRIVER, snapshotsFile: e.SVC_SANDBOX_SNAPSHOTS_FILE },
    platformToolModules: (e.SVC_PLATFORM_TOOL_MODULES ?? '')
      .split(',')
      .map((entry) => entry.trim())
      .filter((entry) => entry !== ''),
    logLevel: e.SVC_LOG_LEVEL,
  };
}

function pickKnown(env: Record<string, string | undefined>): Record<string, string> {
  const known: Record<string, string> = {};
  for (const key of Object.keys(EnvironmentSchema.entries)) {
    const value = env[key];
    if (value !== undefined && value !== '') known[key] = value;
  }
  return known;
}

/** For process entry points: the settings, or a message naming the bad variable and exit 1. */
export function parseSettingsOrExit(env: Record<string, string | undefined> = process.env): Settings {
  try {
    return parseSettings(env);
  } catch (error) {
    if (!(error instanceof SettingsError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
}
