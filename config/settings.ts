import { BlockList, isIP } from 'node:net';
import * as path from 'node:path';
import * as v from 'valibot';
import type { Logger } from './logger.ts';

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

/** A non-negative integer setting with a default; 0 switches the limit off. */
const limitString = (fallback: string, max: number) =>
  v.pipe(v.optional(v.string(), fallback), v.transform(Number), v.integer('must be an integer'), v.minValue(0), v.maxValue(max));

const optionalUrl = v.optional(v.pipe(v.string(), v.url('must be an absolute URL')));
const optionalNonEmpty = v.optional(v.pipe(v.string(), v.nonEmpty()));

/**
 * A retention window in minutes: `<n>m`, `<n>h` or `<n>d` from 1m to 3650d, or `off` (null, the
 * default: nothing is deleted). The same grammar as the project API's (domain/retention.ts, which
 * config may not import).
 */
const RETENTION_UNIT_MINUTES: Record<string, number> = { m: 1, h: 60, d: 1440 };
const retentionString = v.pipe(
  v.optional(v.string(), 'off'),
  v.transform((text) => {
    if (text.trim() === 'off') return null;
    const match = /^([1-9][0-9]{0,7})([mhd])$/.exec(text.trim());
    const minutes = match ? Number(match[1]) * RETENTION_UNIT_MINUTES[match[2]!]! : Number.NaN;
    return minutes >= 1 && minutes <= 3650 * 1440 ? minutes : Number.NaN;
  }),
  v.check((minutes) => minutes === null || !Number.isNaN(minutes), 'must be off or a duration such as 30d, 12h or 90m (from 1m to 3650d)'),
);

/** Signature algorithms an edge assertion may use; `none` and shared-secret HMAC never. */
export const EDGE_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'] as const;

const EnvironmentSchema = v.object({
  PORT: portString('8080'),
  HOST: v.optional(v.pipe(v.string(), v.nonEmpty()), '127.0.0.1'),
  DATABASE_URL: optionalNonEmpty,
  TEMPORAL_ADDRESS: optionalNonEmpty,
  TEMPORAL_NAMESPACE: v.optional(v.pipe(v.string(), v.nonEmpty()), 'default'),
  TEMPORAL_TASK_QUEUE: v.optional(v.pipe(v.string(), v.nonEmpty()), 'agent-runtime'),
  TEMPORAL_CLI_PATH: optionalNonEmpty,
  // An external Temporal cluster or Temporal Cloud (docs/deploy.md).
  TEMPORAL_TLS: booleanString,
  TEMPORAL_TLS_CERT_FILE: optionalNonEmpty,
  TEMPORAL_TLS_KEY_FILE: optionalNonEmpty,
  TEMPORAL_TLS_CA_FILE: optionalNonEmpty,
  TEMPORAL_TLS_SERVER_NAME: optionalNonEmpty,
  TEMPORAL_API_KEY: optionalNonEmpty,
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
  // Development only: every outbound destination (webhooks, MCP, storage, sandbox egress) may be private.
  SVC_OUTBOUND_ALLOW_PRIVATE_NETWORK: booleanString,
  // Its name from when it governed webhooks only: still read, with a deprecation line at start.
  SVC_WEBHOOKS_ALLOW_PRIVATE_NETWORK: booleanString,
  SVC_WEBHOOK_BATCH_GATHER_MS: v.optional(v.pipe(v.string(), v.transform(Number), v.integer('must be an integer'), v.minValue(0), v.maxValue(1000)), '10'),
  // After SIGTERM, how long a process answers `/readyz` 503 `draining` before it stops taking work.
  SVC_SHUTDOWN_GRACE_MS: v.optional(v.pipe(v.string(), v.transform(Number), v.integer('must be an integer'), v.minValue(0), v.maxValue(60_000)), '0'),
  // The worker's operators' HTTP port (`/metrics`, `/healthz`, `/readyz`); unset: the worker serves no HTTP.
  SVC_WORKER_METRICS_PORT: v.optional(v.pipe(v.string(), v.transform(Number), v.integer('must be an integer'), v.minValue(0), v.maxValue(65_535))),
  // The API process's operators' port (`/metrics`, `/healthz`, `/readyz`): metrics never on PORT.
  SVC_API_METRICS_PORT: v.optional(v.pipe(v.string(), v.transform(Number), v.integer('must be an integer'), v.minValue(0), v.maxValue(65_535))),
  // Development sign-in on a HOST other than loopback (docs/decisions.md "Authentication and tenancy").
  SVC_DEVELOPMENT_ALLOW_REMOTE: booleanString,
  SVC_CHECK_RESPONSES: booleanString,
  SVC_MODEL_BASE_URL_GATEWAY: optionalUrl,
  SVC_MODEL_BASE_URL_VENDOR_A: optionalUrl,
  SVC_MODEL_BASE_URL_VENDOR_B: optionalUrl,
  SVC_MODEL_BASE_URL_VENDOR_C: optionalUrl,
  SVC_DEPLOYMENT_PRESETS_FILE: optionalNonEmpty,
  SVC_SANDBOX_DRIVER: v.optional(v.picklist(['local'], 'must be local (the only sandbox driver in this release)'), 'local'),
  SVC_SANDBOX_SNAPSHOTS_FILE: optionalNonEmpty,
  SVC_PLATFORM_TOOL_MODULES: optionalNonEmpty,
  SVC_LOG_LEVEL: v.optional(v.picklist(['debug', 'info', 'warn', 'error', 'silent']), 'info'),
  // Edge-proxy identity (docs/deployment/edge-proxy.md).
  SVC_EDGE_ISSUER: optionalNonEmpty,
  SVC_EDGE_AUDIENCE: optionalNonEmpty,
  SVC_EDGE_JWKS_URL: optionalUrl,
  SVC_EDGE_PUBLIC_KEYS_FILE: optionalNonEmpty,
  SVC_EDGE_ALGORITHMS: v.optional(
    v.pipe(
      v.string(),
      v.transform((value) =>
        value
          .split(',')
          .map((item) => item.trim())
          .filter((item) => item !== ''),
      ),
      v.minLength(1, 'must name at least one algorithm'),
      v.check(
        (list) => list.every((alg) => (EDGE_ALGORITHMS as readonly string[]).includes(alg)),
        `must be a comma-separated list of ${EDGE_ALGORITHMS.join(', ')}`,
      ),
    ),
    'ES256,RS256',
  ),
  SVC_EDGE_ASSERTION_HEADER: v.optional(v.pipe(v.string(), v.regex(/^[A-Za-z0-9-]+$/, 'must be a header name'), v.toLowerCase()), 'x-edge-assertion'),
  SVC_EDGE_CLOCK_SKEW_SECONDS: v.optional(v.pipe(v.string(), v.transform(Number), v.integer('must be an integer'), v.minValue(0), v.maxValue(300)), '30'),
  SVC_EDGE_SERVICE_ACCOUNT_DOMAINS: v.optional(v.string(), 'gserviceaccount.com'),
  // Hosted identity provider (docs/deployment/hosted-oidc.md).
  SVC_OIDC_ISSUER: optionalUrl,
  SVC_OIDC_CLIENT_ID: optionalNonEmpty,
  SVC_OIDC_CLIENT_SECRET: optionalNonEmpty,
  SVC_OIDC_REDIRECT_URI: optionalUrl,
  SVC_OIDC_SCOPES: v.optional(
    v.pipe(
      v.string(),
      v.check((value) => value.split(/\s+/).includes('openid'), 'must include openid'),
    ),
    'openid email profile offline_access',
  ),
  SVC_OIDC_CA_FILE: optionalNonEmpty,
  SVC_OIDC_SESSION_MINUTES: v.optional(v.pipe(v.string(), v.transform(Number), v.integer('must be an integer'), v.minValue(5), v.maxValue(1440)), '60'),
  SVC_INITIAL_OWNER_SUBJECT: optionalNonEmpty,
  // Request limits and run quotas (docs/decisions.md "Rate limits and quotas"); 0 = no limit.
  SVC_RATE_LIMIT_API_KEY_PER_SECOND: limitString('50', 100_000),
  SVC_RATE_LIMIT_API_KEY_BURST: limitString('100', 1_000_000),
  SVC_RATE_LIMIT_PROJECT_PER_SECOND: limitString('100', 100_000),
  SVC_RATE_LIMIT_PROJECT_BURST: limitString('200', 1_000_000),
  SVC_PROJECT_UNSETTLED_RUNS_LIMIT: limitString('1000', 10_000_000),
  SVC_PROJECT_RUNNING_RUNS_LIMIT: limitString('32', 100_000),
  SVC_EVENT_STREAMS_PER_PRINCIPAL: limitString('16', 100_000),
  SVC_EVENT_STREAMS_PER_PROJECT: limitString('256', 1_000_000),
  SVC_REFRESH_LIFETIME_DAYS: v.optional(v.pipe(v.string(), v.transform(Number), v.integer('must be an integer'), v.minValue(1), v.maxValue(400)), '400'),
  // OpenTelemetry traces (config/tracing.ts): on when an OTLP endpoint is set. The SDK reads these
  // and the other standard OTEL_* variables itself; here they are only checked and decide on/off.
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalUrl,
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: optionalUrl,
  OTEL_SDK_DISABLED: v.optional(v.pipe(v.string(), v.toLowerCase(), v.picklist(['true', 'false'], 'must be true or false')), 'false'),
  OTEL_TRACES_EXPORTER: optionalNonEmpty,
  // Retention (docs/decisions.md "Retention"): a window such as `30d`, `12h`, `90m`, or `off` (kept for good).
  SVC_RETENTION_SESSIONS: retentionString,
  SVC_RETENTION_EVENTS: retentionString,
  SVC_RETENTION_SWEEP_INTERVAL_SECONDS: v.optional(
    v.pipe(v.string(), v.transform(Number), v.integer('must be an integer'), v.minValue(10), v.maxValue(86_400)),
    '300',
  ),
  SVC_RETENTION_BATCH_SIZE: v.optional(v.pipe(v.string(), v.transform(Number), v.integer('must be an integer'), v.minValue(1), v.maxValue(10_000)), '200'),
  // The currency of every price, cost and budget (docs/decisions.md "Prices and cost"): ISO 4217.
  SVC_CURRENCY: v.optional(v.pipe(v.string(), v.regex(/^[A-Z]{3}$/, 'must be a three-letter ISO 4217 code such as USD')), 'USD'),
  // The shortest `intervalSeconds` a schedule may have (docs/decisions.md "Schedules: limits"); at most 60, cron's own floor.
  SVC_SCHEDULE_MIN_INTERVAL_SECONDS: v.optional(
    v.pipe(
      v.string(),
      v.transform(Number),
      v.integer('must be an integer'),
      v.minValue(1),
      v.maxValue(60, 'must be at most 60 (a cron expression fires at most once a minute)'),
    ),
    '60',
  ),
});

export type TemporalSecurity = {
  tls: boolean;
  certFile: string | undefined;
  keyFile: string | undefined;
  caFile: string | undefined;
  serverName: string | undefined;
  apiKey: string | undefined;
};

export type EdgeProxySettings = {
  issuer: string;
  audience: string;
  /** Exactly one of jwksUrl and publicKeysFile (a JWKS JSON file). */
  jwksUrl: string | undefined;
  publicKeysFile: string | undefined;
  algorithms: string[];
  /** Where the edge puts its signed assertion; `Proxy-Authorization: Bearer` is read too. */
  assertionHeader: string;
  clockSkewSeconds: number;
  /** Email domains of machine identities: they never claim ownership nor join on their own. */
  serviceAccountDomains: string[];
};

export type HostedSettings = {
  issuer: string;
  clientId: string;
  clientSecret: string | undefined;
  redirectUri: string;
  scopes: string;
  /** Extra CA certificates (PEM) trusted for the provider's endpoints. */
  caFile: string | undefined;
  /** How long a cookie session lasts before `POST /auth/refresh`. */
  sessionMinutes: number;
  /** Made owner on the first start of a fresh installation (then ignored). */
  initialOwnerSubject: string;
};

export type Settings = {
  port: number;
  host: string;
  databaseUrl: string | undefined;
  temporal: {
    address: string | undefined;
    namespace: string;
    taskQueue: string;
    cliPath: string | undefined;
    /** How to reach an external cluster: TLS (mTLS with a client pair) and/or an API key. */
    security: TemporalSecurity;
  };
  dataDir: string;
  environment: 'development' | 'production';
  authMode: 'development' | 'edge_proxy' | 'hosted';
  appOrigin: string;
  credentialEncryptionKey: string | undefined;
  /** SVC_OUTBOUND_ALLOW_PRIVATE_NETWORK (or its old name): the address policy lets private destinations through. */
  outboundAllowPrivateNetwork: boolean;
  /** One line for each deprecated setting the environment uses, for the process to log at start. */
  deprecations: string[];
  /** SVC_WEBHOOK_BATCH_GATHER_MS (activities/webhooks/deliver-batch.ts). */
  webhookBatchGatherMs: number;
  /** SVC_CURRENCY: the currency of prices, costs and budgets. */
  currency: string;
  /** SVC_SHUTDOWN_GRACE_MS: after SIGTERM, reported not ready (`draining`) this long before stopping. */
  shutdownGraceMs: number;
  /** SVC_WORKER_METRICS_PORT: the worker's `/metrics`, `/healthz` and `/readyz` (0: any free port); null: none. */
  workerMetricsPort: number | null;
  /** SVC_API_METRICS_PORT: the API process's `/metrics`, `/healthz` and `/readyz` (0: any free port); null: none. */
  apiMetricsPort: number | null;
  /** SVC_DEVELOPMENT_ALLOW_REMOTE: development sign-in may listen on a non-loopback HOST. */
  developmentAllowRemote: boolean;
  /** Check every JSON success answer against its route's documented shape (tests; docs/decisions.md). */
  checkResponses: boolean;
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
  /** Set exactly when authMode is edge_proxy. */
  edgeProxy: EdgeProxySettings | null;
  /** Set exactly when authMode is hosted. */
  hosted: HostedSettings | null;
  /** Lifetime of the hosted refresh cookie (spec 3 "Browser sessions": default 400 days). */
  refreshLifetimeDays: number;
  /** OpenTelemetry traces: on when OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT is set, unless OTEL_SDK_DISABLED or OTEL_TRACES_EXPORTER=none. */
  tracing: { enabled: boolean };
  /** Request limits and run quotas; null = that limit is off (docs/decisions.md "Rate limits and quotas"). */
  limits: LimitSettings;
  /** Retention of settled sessions and product events (docs/decisions.md "Retention"). */
  retention: RetentionSettings;
  /** SVC_SCHEDULE_MIN_INTERVAL_SECONDS: the shortest interval a schedule may fire at. */
  scheduleMinIntervalSeconds: number;
};

export type RetentionSettings = {
  /** SVC_RETENTION_SESSIONS: the installation default for settled sessions; null = kept for good. */
  sessionsMinutes: number | null;
  /** SVC_RETENTION_EVENTS: the installation default for product events; null = kept for good. */
  eventsMinutes: number | null;
  /** SVC_RETENTION_SWEEP_INTERVAL_SECONDS, in ms: how often the worker's retention sweep runs. */
  sweepIntervalMs: number;
  /** SVC_RETENTION_BATCH_SIZE: session trees per transaction, events per statement, objects per tick step. */
  batchSize: number;
};

export type RequestRate = { perSecond: number; burst: number };

export type LimitSettings = {
  /** Token bucket per API key, in each API process. */
  apiKeyRequests: RequestRate | null;
  /** Token bucket per acting project (API keys and browser sessions together), in each API process. */
  projectRequests: RequestRate | null;
  /** Unsettled runs a project may hold: creating one more answers 429. */
  projectUnsettledRuns: number | null;
  /** Runs of a project executing at once: further runs wait `queued` for a free place. */
  projectRunningRuns: number | null;
  /** Event streams open at once per API key (or person), in each API process: one more answers 429. */
  eventStreamsPerPrincipal: number | null;
  /** Event streams open at once per project (all its callers), in each API process. */
  eventStreamsPerProject: number | null;
};

export class SettingsError extends Error {
  override name = 'SettingsError';
}

/** Every environment variable the service reads. */
export const SETTING_NAMES: readonly string[] = Object.keys(EnvironmentSchema.entries);

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
  // One line per problem, so an operator fixes them all in one go.
  const problems: string[] = [];
  if (e.SVC_ENVIRONMENT === 'production') {
    if (e.SVC_OUTBOUND_ALLOW_PRIVATE_NETWORK) problems.push('SVC_OUTBOUND_ALLOW_PRIVATE_NETWORK is refused when SVC_ENVIRONMENT=production');
    if (e.SVC_WEBHOOKS_ALLOW_PRIVATE_NETWORK) problems.push('SVC_WEBHOOKS_ALLOW_PRIVATE_NETWORK is refused when SVC_ENVIRONMENT=production');
    if (!e.SVC_CREDENTIAL_ENCRYPTION_KEY) problems.push('SVC_CREDENTIAL_ENCRYPTION_KEY is required when SVC_ENVIRONMENT=production');
    if (e.SVC_AUTH_MODE === 'development') problems.push('SVC_AUTH_MODE=development is refused when SVC_ENVIRONMENT=production (use edge_proxy or hosted)');
    if (!e.SVC_APP_ORIGIN.startsWith('https://')) problems.push('SVC_APP_ORIGIN must be an https:// origin when SVC_ENVIRONMENT=production');
    if (e.SVC_DEVELOPMENT_ALLOW_REMOTE) problems.push('SVC_DEVELOPMENT_ALLOW_REMOTE is refused when SVC_ENVIRONMENT=production');
  }
  // Development sign-in makes anyone who reaches the port the owner: loopback only unless asked.
  if (e.SVC_AUTH_MODE === 'development' && !e.SVC_DEVELOPMENT_ALLOW_REMOTE && !isLoopbackHost(e.HOST)) {
    problems.push(
      `HOST=${e.HOST} is not a loopback address, and with SVC_AUTH_MODE=development anyone who reaches the port signs in as the owner: ` +
        'listen on 127.0.0.1 (the default) or ::1, use SVC_AUTH_MODE=edge_proxy or hosted, or set SVC_DEVELOPMENT_ALLOW_REMOTE=true if every client that can reach the port is trusted',
    );
  }
  const security = temporalSecurity(e, problems);
  const edgeProxy = e.SVC_AUTH_MODE === 'edge_proxy' ? edgeProxySettings(e, problems) : null;
  const hosted = e.SVC_AUTH_MODE === 'hosted' ? hostedSettings(e, problems) : null;
  if (problems.length > 0) throw new SettingsError(`Invalid server settings:\n  ${problems.join('\n  ')}`);
  return {
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    temporal: {
      address: e.TEMPORAL_ADDRESS,
      namespace: e.TEMPORAL_NAMESPACE,
      taskQueue: e.TEMPORAL_TASK_QUEUE,
      cliPath: e.TEMPORAL_CLI_PATH,
      security,
    },
    dataDir: path.resolve(e.SVC_DATA_DIR),
    environment: e.SVC_ENVIRONMENT,
    authMode: e.SVC_AUTH_MODE,
    appOrigin: e.SVC_APP_ORIGIN,
    credentialEncryptionKey: e.SVC_CREDENTIAL_ENCRYPTION_KEY,
    outboundAllowPrivateNetwork: e.SVC_OUTBOUND_ALLOW_PRIVATE_NETWORK || e.SVC_WEBHOOKS_ALLOW_PRIVATE_NETWORK,
    deprecations: deprecationsOf(env),
    webhookBatchGatherMs: e.SVC_WEBHOOK_BATCH_GATHER_MS,
    currency: e.SVC_CURRENCY,
    shutdownGraceMs: e.SVC_SHUTDOWN_GRACE_MS,
    workerMetricsPort: e.SVC_WORKER_METRICS_PORT ?? null,
    apiMetricsPort: e.SVC_API_METRICS_PORT ?? null,
    developmentAllowRemote: e.SVC_DEVELOPMENT_ALLOW_REMOTE,
    checkResponses: e.SVC_CHECK_RESPONSES,
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
    edgeProxy,
    hosted,
    refreshLifetimeDays: e.SVC_REFRESH_LIFETIME_DAYS,
    tracing: {
      enabled:
        Boolean(e.OTEL_EXPORTER_OTLP_ENDPOINT ?? e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) &&
        e.OTEL_SDK_DISABLED !== 'true' &&
        e.OTEL_TRACES_EXPORTER?.trim() !== 'none',
    },
    limits: {
      apiKeyRequests: requestRate(e.SVC_RATE_LIMIT_API_KEY_PER_SECOND, e.SVC_RATE_LIMIT_API_KEY_BURST),
      projectRequests: requestRate(e.SVC_RATE_LIMIT_PROJECT_PER_SECOND, e.SVC_RATE_LIMIT_PROJECT_BURST),
      projectUnsettledRuns: e.SVC_PROJECT_UNSETTLED_RUNS_LIMIT || null,
      projectRunningRuns: e.SVC_PROJECT_RUNNING_RUNS_LIMIT || null,
      eventStreamsPerPrincipal: e.SVC_EVENT_STREAMS_PER_PRINCIPAL || null,
      eventStreamsPerProject: e.SVC_EVENT_STREAMS_PER_PROJECT || null,
    },
    retention: {
      sessionsMinutes: e.SVC_RETENTION_SESSIONS,
      eventsMinutes: e.SVC_RETENTION_EVENTS,
      sweepIntervalMs: e.SVC_RETENTION_SWEEP_INTERVAL_SECONDS * 1000,
      batchSize: e.SVC_RETENTION_BATCH_SIZE,
    },
    scheduleMinIntervalSeconds: e.SVC_SCHEDULE_MIN_INTERVAL_SECONDS,
  };
}

/** A rate of 0 switches the bucket off; a burst below one request is raised to one. */
function requestRate(perSecond: number, burst: number): RequestRate | null {
  return perSecond > 0 ? { perSecond, burst: Math.max(1, burst) } : null;
}

type ParsedEnvironment = v.InferOutput<typeof EnvironmentSchema>;

function temporalSecurity(e: ParsedEnvironment, problems: string[]): TemporalSecurity {
  if (Boolean(e.TEMPORAL_TLS_CERT_FILE) !== Boolean(e.TEMPORAL_TLS_KEY_FILE)) {
    problems.push('TEMPORAL_TLS_CERT_FILE and TEMPORAL_TLS_KEY_FILE go together: the client certificate and its private key');
  }
  const any =
    e.TEMPORAL_TLS || e.TEMPORAL_TLS_CERT_FILE || e.TEMPORAL_TLS_KEY_FILE || e.TEMPORAL_TLS_CA_FILE || e.TEMPORAL_TLS_SERVER_NAME || e.TEMPORAL_API_KEY;
  if (any && !e.TEMPORAL_ADDRESS) problems.push('TEMPORAL_TLS* and TEMPORAL_API_KEY apply to an external Temporal: set TEMPORAL_ADDRESS too');
  return {
    // Client certificates, a custom CA, a server name and Temporal Cloud API keys all mean TLS.
    tls: Boolean(any),
    certFile: e.TEMPORAL_TLS_CERT_FILE,
    keyFile: e.TEMPORAL_TLS_KEY_FILE,
    caFile: e.TEMPORAL_TLS_CA_FILE,
    serverName: e.TEMPORAL_TLS_SERVER_NAME,
    apiKey: e.TEMPORAL_API_KEY,
  };
}

function edgeProxySettings(e: ParsedEnvironment, problems: string[]): EdgeProxySettings | null {
  const mode = 'when SVC_AUTH_MODE=edge_proxy';
  if (!e.SVC_EDGE_ISSUER) problems.push(`SVC_EDGE_ISSUER is required ${mode}: the exact issuer (iss) of the edge's assertions`);
  if (!e.SVC_EDGE_AUDIENCE) problems.push(`SVC_EDGE_AUDIENCE is required ${mode}: the exact audience (aud) the edge signs for this service`);
  if (!e.SVC_EDGE_JWKS_URL && !e.SVC_EDGE_PUBLIC_KEYS_FILE)
    problems.push(`SVC_EDGE_JWKS_URL or SVC_EDGE_PUBLIC_KEYS_FILE is required ${mode}: where the edge's public keys are`);
  if (e.SVC_EDGE_JWKS_URL && e.SVC_EDGE_PUBLIC_KEYS_FILE) problems.push('SVC_EDGE_JWKS_URL and SVC_EDGE_PUBLIC_KEYS_FILE are exclusive: set one');
  if (e.SVC_ENVIRONMENT === 'production' && e.SVC_EDGE_JWKS_URL && !e.SVC_EDGE_JWKS_URL.startsWith('https://')) {
    problems.push('SVC_EDGE_JWKS_URL must be https:// when SVC_ENVIRONMENT=production');
  }
  if (!e.SVC_EDGE_ISSUER || !e.SVC_EDGE_AUDIENCE) return null;
  return {
    issuer: e.SVC_EDGE_ISSUER,
    audience: e.SVC_EDGE_AUDIENCE,
    jwksUrl: e.SVC_EDGE_JWKS_URL,
    publicKeysFile: e.SVC_EDGE_PUBLIC_KEYS_FILE,
    algorithms: e.SVC_EDGE_ALGORITHMS,
    assertionHeader: e.SVC_EDGE_ASSERTION_HEADER,
    clockSkewSeconds: e.SVC_EDGE_CLOCK_SKEW_SECONDS,
    serviceAccountDomains: e.SVC_EDGE_SERVICE_ACCOUNT_DOMAINS.split(',')
      .map((item) => item.trim().toLowerCase())
      .filter((item) => item !== ''),
  };
}

function hostedSettings(e: ParsedEnvironment, problems: string[]): HostedSettings | null {
  const mode = 'when SVC_AUTH_MODE=hosted';
  if (!e.SVC_OIDC_ISSUER) problems.push(`SVC_OIDC_ISSUER is required ${mode}: the OpenID provider's issuer URL`);
  else if (!e.SVC_OIDC_ISSUER.startsWith('https://') && e.SVC_ENVIRONMENT === 'production')
    problems.push('SVC_OIDC_ISSUER must be https:// when SVC_ENVIRONMENT=production');
  if (!e.SVC_OIDC_CLIENT_ID) problems.push(`SVC_OIDC_CLIENT_ID is required ${mode}: the client id registered with the provider`);
  if (!e.SVC_INITIAL_OWNER_SUBJECT)
    problems.push(`SVC_INITIAL_OWNER_SUBJECT is required ${mode}: the provider subject (sub) made owner on a fresh installation`);
  if (!e.SVC_OIDC_ISSUER || !e.SVC_OIDC_CLIENT_ID || !e.SVC_INITIAL_OWNER_SUBJECT) return null;
  return {
    issuer: e.SVC_OIDC_ISSUER,
    clientId: e.SVC_OIDC_CLIENT_ID,
    clientSecret: e.SVC_OIDC_CLIENT_SECRET,
    redirectUri: e.SVC_OIDC_REDIRECT_URI ?? `${e.SVC_APP_ORIGIN}/v1/auth/callback`,
    scopes: e.SVC_OIDC_SCOPES,
    caFile: e.SVC_OIDC_CA_FILE,
    sessionMinutes: e.SVC_OIDC_SESSION_MINUTES,
    initialOwnerSubject: e.SVC_INITIAL_OWNER_SUBJECT,
  };
}

/** Settings read under an old name: the name to use instead. */
const RENAMED: Record<string, string> = { SVC_WEBHOOKS_ALLOW_PRIVATE_NETWORK: 'SVC_OUTBOUND_ALLOW_PRIVATE_NETWORK' };

function deprecationsOf(env: Record<string, string | undefined>): string[] {
  return Object.entries(RENAMED)
    .filter(([old]) => env[old] !== undefined && env[old] !== '')
    .map(([old, current]) => `${old} is deprecated: set ${current} instead (it governs every outbound destination)`);
}

/** Logs each deprecated setting in use, once, at a process's start. */
export function warnOfDeprecatedSettings(settings: Pick<Settings, 'deprecations'>, logger: Pick<Logger, 'warn'>): void {
  for (const line of settings.deprecations) logger.warn(line);
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

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');
LOOPBACK.addSubnet('::ffff:127.0.0.0', 104, 'ipv6');

/** 127.0.0.0/8, ::1 (any spelling, bracketed or not) and `localhost` names (loopback by RFC 6761). */
function isLoopbackHost(host: string): boolean {
  const name = host
    .replace(/^\[(.*)\]$/, '$1')
    .toLowerCase()
    .replace(/\.$/, '');
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  const family = isIP(name);
  return family !== 0 && LOOPBACK.check(name, family === 4 ? 'ipv4' : 'ipv6');
}
