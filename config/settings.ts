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

/** A switch that is on unless set to false. */
const onUnlessFalse = v.pipe(
  v.optional(v.picklist(['true', 'false', '1', '0', '']), 'true'),
  v.transform((value) => value !== 'false' && value !== '0'),
);

const portString = (fallback: string) =>
  v.pipe(
    v.optional(v.string(), fallback),
    v.transform((value) => Number(value)),
    v.integer('must be an integer port'),
    v.minValue(0),
    v.maxValue(65535),
  );

/** An integer setting from `min` to `max` (wrap it in `v.optional` with its default). */
const integerIn = (min: number, max: number) => v.pipe(v.string(), v.transform(Number), v.integer('must be an integer'), v.minValue(min), v.maxValue(max));

/** A non-negative integer setting with a default; 0 switches the limit off. */
const limitString = (fallback: string, max: number) => v.optional(integerIn(0, max), fallback);

const absoluteUrl = v.pipe(v.string(), v.url('must be an absolute URL'));
const optionalUrl = v.optional(absoluteUrl);
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

/** A setting's schema with what the settings table says of it; `shown` words its default where the schema's is not the whole story. */
function setting<const S extends v.GenericSchema>(schema: S, meaning: string, shown?: string) {
  return { schema, meaning, shown };
}

function schemasOf<T extends Record<string, { schema: v.GenericSchema }>>(settings: T): { [K in keyof T]: T[K]['schema'] } {
  return Object.fromEntries(Object.entries(settings).map(([name, entry]) => [name, entry.schema])) as { [K in keyof T]: T[K]['schema'] };
}

/** One row of the settings table per variable, in the schema's order. */
export function settingsTableRows(): { name: string; meaning: string; shown: string }[] {
  return Object.entries(SETTINGS).map(([name, entry]: [string, { schema: v.GenericSchema; meaning: string; shown: string | undefined }]) => {
    const fallback = 'default' in entry.schema ? (entry.schema as { default: unknown }).default : undefined;
    return { name, meaning: entry.meaning, shown: entry.shown ?? (typeof fallback === 'string' ? `\`${fallback}\`` : 'none') };
  });
}

/** Signature algorithms an edge assertion may use; `none` and shared-secret HMAC never. */
export const EDGE_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'] as const;

/**
 * Every server setting: how it is parsed and what the settings table (docs/settings.md) says of
 * it. The table's default column is the schema's own default unless `shown` words it otherwise.
 */
const SETTINGS = {
  PORT: setting(portString('8080'), 'API listen port'),
  HOST: setting(
    v.optional(v.pipe(v.string(), v.nonEmpty()), '127.0.0.1'),
    'API listen address; with `SVC_AUTH_MODE=development` only a loopback `HOST` (`127.0.0.1`, `::1`, `localhost`) unless `SVC_DEVELOPMENT_ALLOW_REMOTE=true`',
  ),
  DATABASE_URL: setting(optionalNonEmpty, 'PostgreSQL URL', 'unset → embedded PGlite in `SVC_DATA_DIR`'),
  TEMPORAL_ADDRESS: setting(optionalNonEmpty, 'Temporal frontend (`host:port`)', 'unset → a local dev server from `temporal-dev.yaml`'),
  TEMPORAL_NAMESPACE: setting(v.optional(v.pipe(v.string(), v.nonEmpty()), 'default'), 'Temporal namespace'),
  TEMPORAL_TASK_QUEUE: setting(v.optional(v.pipe(v.string(), v.nonEmpty()), 'agent-runtime'), 'Temporal task queue of the runs and the worker'),
  TEMPORAL_CLI_PATH: setting(optionalNonEmpty, 'an existing `temporal` binary for the dev server', 'looked up, then installed'),
  // An external Temporal cluster or Temporal Cloud (docs/deploy.md).
  TEMPORAL_TLS: setting(booleanString, 'TLS to an external Temporal cluster (system roots unless `TEMPORAL_TLS_CA_FILE` is given)'),
  TEMPORAL_TLS_CERT_FILE: setting(optionalNonEmpty, 'mTLS client certificate (with `TEMPORAL_TLS_KEY_FILE`; implies TLS)'),
  TEMPORAL_TLS_KEY_FILE: setting(optionalNonEmpty, 'mTLS client private key (with `TEMPORAL_TLS_CERT_FILE`)'),
  TEMPORAL_TLS_CA_FILE: setting(optionalNonEmpty, 'CA certificates (PEM) to trust for Temporal (implies TLS)'),
  TEMPORAL_TLS_SERVER_NAME: setting(optionalNonEmpty, "the server name to check Temporal's certificate against (implies TLS)"),
  TEMPORAL_API_KEY: setting(optionalNonEmpty, 'Temporal Cloud API key (implies TLS; never logged)'),
  SVC_DATA_DIR: setting(v.optional(v.pipe(v.string(), v.nonEmpty()), './.data'), 'local state for embedded mode'),
  SVC_ENVIRONMENT: setting(v.optional(v.picklist(['development', 'production']), 'development'), '`development` or `production`'),
  SVC_AUTH_MODE: setting(
    v.optional(v.picklist(['development', 'edge_proxy', 'hosted']), 'development'),
    'browser sign-in: `development` (a fixed local owner), `edge_proxy` (an identity-aware edge signs each request: [deployment/edge-proxy.md](deployment/edge-proxy.md)) or `hosted` (OpenID Connect: [deployment/hosted-oidc.md](deployment/hosted-oidc.md)); production refuses `development`',
  ),
  SVC_APP_ORIGIN: setting(
    v.optional(
      v.pipe(
        v.string(),
        v.url('must be an origin such as http://localhost:8080'),
        v.check((value) => new URL(value).origin === value.replace(/\/$/, ''), 'must be an origin without a path'),
        v.transform((value) => new URL(value).origin),
      ),
      'http://localhost:8080',
    ),
    'the one allowed browser origin (https in production)',
  ),
  SVC_CREDENTIAL_ENCRYPTION_KEY: setting(
    optionalNonEmpty,
    'base64 of 32 bytes: the key that encrypts stored credentials',
    'development: generated once into `SVC_DATA_DIR`; production: required',
  ),
  SVC_OUTBOUND_ALLOW_PRIVATE_NETWORK: setting(
    booleanString,
    "allow http:// and private addresses (and `localhost` names) for webhooks, MCP servers, storage endpoints, `http_get` and sandbox `restricted` egress (refused in production; sandboxes never reach the worker host itself or the service's own ports either way)",
  ),
  SVC_WEBHOOKS_ALLOW_PRIVATE_NETWORK: setting(
    booleanString,
    'the old name of `SVC_OUTBOUND_ALLOW_PRIVATE_NETWORK`, from when it governed webhooks only: still read, with a deprecation line in the log at start',
  ),
  SVC_WEBHOOK_BATCH_GATHER_MS: setting(
    v.optional(integerIn(0, 1000), '10'),
    "how long a delivered webhook batch that was not full waits, from its request's start, before the next batch is planned, so events committing in quick succession share a request (0-1000; adds at most this to an event's delivery)",
  ),
  SVC_SHUTDOWN_GRACE_MS: setting(
    v.optional(integerIn(0, 60_000), '0'),
    'after SIGTERM, how long the API or worker answers `/readyz` with 503 `draining` (while still serving) before it stops taking work (0-60000)',
  ),
  SVC_WORKER_METRICS_PORT: setting(
    v.optional(integerIn(0, 65_535)),
    "the worker's port for operators: `GET /metrics`, `GET /healthz` and `GET /readyz` (listening on `HOST`); 0 picks a free port",
    'unset → the worker serves no HTTP',
  ),
  SVC_API_METRICS_PORT: setting(
    v.optional(integerIn(0, 65_535)),
    "the API process's port for operators: `GET /metrics` (never served on `PORT`), `GET /healthz` and `GET /readyz` (listening on `HOST`); 0 picks a free port; `npm start` serves its one process's metrics on each of the two ports given",
    'unset → no metrics',
  ),
  SVC_DEVELOPMENT_ALLOW_REMOTE: setting(
    booleanString,
    'let development sign-in (whoever reaches the port becomes the owner) listen on a non-loopback `HOST` such as `0.0.0.0`; only for a network where every client is trusted (refused in production)',
  ),
  SVC_A2A_SERVER: setting(
    onUnlessFalse,
    'serve each agent over the Agent2Agent protocol at `/a2a/{projectId}/agents/{agentId}` (docs/agent-protocols.md); a project can switch its own off',
  ),
  SVC_MCP_SERVER: setting(
    onUnlessFalse,
    "serve a project's agents as the tools of a Streamable HTTP MCP server at `/mcp/{projectId}` (docs/agent-protocols.md); a project can switch its own off",
  ),
  SVC_CHECK_RESPONSES: setting(
    booleanString,
    "check every JSON success answer against its route's documented shape and answer 500 on a mismatch (the tests turn it on; a development aid)",
  ),
  SVC_MODEL_BASE_URL_GATEWAY: setting(
    v.optional(absoluteUrl, 'https://openrouter.ai/api/v1'),
    'endpoint override for `gateway` providers (OpenRouter protocol)',
  ),
  SVC_MODEL_BASE_URL_VENDOR_A: setting(v.optional(absoluteUrl, 'https://api.openai.com/v1'), 'endpoint override for `vendor_a` providers (OpenAI protocol)'),
  SVC_MODEL_BASE_URL_VENDOR_B: setting(v.optional(absoluteUrl, 'https://api.anthropic.com'), 'endpoint override for `vendor_b` providers (Anthropic protocol)'),
  SVC_MODEL_BASE_URL_VENDOR_C: setting(
    v.optional(absoluteUrl, 'https://generativelanguage.googleapis.com/v1beta'),
    'endpoint override for `vendor_c` providers (Gemini protocol)',
  ),
  SVC_DEPLOYMENT_PRESETS_FILE: setting(optionalNonEmpty, 'deployment model presets offered to every project'),
  SVC_SANDBOX_DRIVER: setting(
    v.optional(v.picklist(['local'], 'must be local (the only sandbox driver in this release)'), 'local'),
    'the driver behind `sandbox_vendor` connections (`local`: bubblewrap on the worker)',
  ),
  SVC_SANDBOX_SNAPSHOTS_FILE: setting(
    optionalNonEmpty,
    'the sandbox snapshot registry (JSON; how to register one: [activities/sandbox/local/README.md](../activities/sandbox/local/README.md))',
    "one built-in snapshot: the host's `/usr`, read-only",
  ),
  SVC_PLATFORM_TOOL_MODULES: setting(
    optionalNonEmpty,
    'platform tools the worker registers: comma-separated ES module paths and `builtin:http_get` ([activities/platform-tools/README.md](../activities/platform-tools/README.md))',
  ),
  SVC_LOG_LEVEL: setting(v.optional(v.picklist(['debug', 'info', 'warn', 'error', 'silent']), 'info'), '`debug`, `info`, `warn`, `error`, `silent`'),
  // Edge-proxy identity (docs/deployment/edge-proxy.md).
  SVC_EDGE_ISSUER: setting(optionalNonEmpty, "edge-proxy: the exact `iss` of the edge's assertions (required)"),
  SVC_EDGE_AUDIENCE: setting(optionalNonEmpty, "edge-proxy: the exact `aud` of the edge's assertions (required)"),
  SVC_EDGE_JWKS_URL: setting(optionalUrl, "edge-proxy: the edge's public keys as a JWKS URL (https in production; this or `SVC_EDGE_PUBLIC_KEYS_FILE`)"),
  SVC_EDGE_PUBLIC_KEYS_FILE: setting(optionalNonEmpty, "edge-proxy: the edge's public keys as a JWKS JSON file (this or `SVC_EDGE_JWKS_URL`)"),
  SVC_EDGE_ALGORITHMS: setting(
    v.optional(
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
    'edge-proxy: allowed signature algorithms (asymmetric only)',
  ),
  SVC_EDGE_ASSERTION_HEADER: setting(
    v.optional(v.pipe(v.string(), v.regex(/^[A-Za-z0-9-]+$/, 'must be a header name'), v.toLowerCase()), 'x-edge-assertion'),
    'edge-proxy: the header the edge puts its assertion in (`Proxy-Authorization: Bearer` is read too)',
  ),
  SVC_EDGE_CLOCK_SKEW_SECONDS: setting(v.optional(integerIn(0, 300), '30'), "edge-proxy: tolerance on an assertion's expiry (0-300)"),
  SVC_EDGE_SERVICE_ACCOUNT_DOMAINS: setting(
    v.optional(v.string(), 'gserviceaccount.com'),
    'edge-proxy: email domains of machine identities (never claim ownership or join on their own)',
  ),
  // Hosted identity provider (docs/deployment/hosted-oidc.md).
  SVC_OIDC_ISSUER: setting(optionalUrl, "hosted: the provider's issuer (https in production; required)"),
  SVC_OIDC_CLIENT_ID: setting(optionalNonEmpty, "hosted: this service's client id at the provider (required)"),
  SVC_OIDC_CLIENT_SECRET: setting(optionalNonEmpty, "hosted: this service's client secret (none: a public client with PKCE)"),
  SVC_OIDC_REDIRECT_URI: setting(optionalUrl, 'hosted: the callback registered with the provider', '`$SVC_APP_ORIGIN/v1/auth/callback`'),
  SVC_OIDC_SCOPES: setting(
    v.optional(
      v.pipe(
        v.string(),
        v.check((value) => value.split(/\s+/).includes('openid'), 'must include openid'),
      ),
      'openid email profile offline_access',
    ),
    'hosted: requested scopes (must include `openid`)',
  ),
  SVC_OIDC_CA_FILE: setting(optionalNonEmpty, 'hosted: extra CA certificates (PEM) to trust for the provider'),
  SVC_OIDC_SESSION_MINUTES: setting(v.optional(integerIn(5, 1440), '60'), 'hosted: cookie session lifetime before `POST /auth/refresh` (5-1440)'),
  SVC_INITIAL_OWNER_SUBJECT: setting(optionalNonEmpty, 'hosted: the provider `sub` made owner on a fresh installation (required; ignored once claimed)'),
  // Request limits and run quotas (docs/decisions/request-rate-limits.md, event-stream-limits.md, unsettled-runs-quota.md,
  // running-runs-limit.md); 0 = no limit.
  SVC_RATE_LIMIT_API_KEY_PER_SECOND: setting(
    limitString('50', 100_000),
    'requests per second per API key, and per person for browser sessions, in each API process (`0` = off); past it: `429 rate_limited` with `Retry-After`',
  ),
  SVC_RATE_LIMIT_API_KEY_BURST: setting(limitString('100', 1_000_000), 'the burst of `SVC_RATE_LIMIT_API_KEY_PER_SECOND`'),
  SVC_RATE_LIMIT_PROJECT_PER_SECOND: setting(
    limitString('100', 100_000),
    'requests per second per project (API keys and browser sessions together), in each API process (`0` = off); requests refused with 400, 401 or 403 give their project token back',
  ),
  SVC_RATE_LIMIT_PROJECT_BURST: setting(limitString('200', 1_000_000), 'the burst of `SVC_RATE_LIMIT_PROJECT_PER_SECOND`'),
  SVC_PROJECT_UNSETTLED_RUNS_LIMIT: setting(
    limitString('1000', 10_000_000),
    'unsettled runs a project may hold; one more is refused with `429 rate_limited` (`0` = off)',
  ),
  SVC_PROJECT_RUNNING_RUNS_LIMIT: setting(
    limitString('32', 100_000),
    "runs of one project executing at once; the rest wait `queued` and start as places free up, so one tenant's backlog cannot hold up another's runs (`0` = off)",
  ),
  SVC_RUN_DELEGATION_PARALLELISM: setting(
    v.optional(integerIn(1, 64), '8'),
    'child runs one run may have going at once when a turn delegates several tasks (1-64; each delegate also keeps to its `maxParallel`); the rest wait `queued`, in call order',
  ),
  SVC_EVENT_STREAMS_PER_PRINCIPAL: setting(
    limitString('16', 100_000),
    'event streams (`GET /events`, session streams and the Anthropic-compatible stream, one pool; `once=true` pages while read) open at once per API key or person, in each API process (`0` = off); one more: `429 rate_limited` with `Retry-After`',
  ),
  SVC_EVENT_STREAMS_PER_PROJECT: setting(limitString('256', 1_000_000), 'the same pool of event streams, per project (`0` = off)'),
  SVC_REFRESH_LIFETIME_DAYS: setting(v.optional(integerIn(1, 400), '400'), 'hosted: refresh cookie lifetime (1-400)'),
  // OpenTelemetry traces (config/tracing.ts): on when an OTLP endpoint is set. The SDK reads these
  // and the other standard OTEL_* variables itself; here they are only checked and decide on/off.
  OTEL_EXPORTER_OTLP_ENDPOINT: setting(
    optionalUrl,
    'where traces go over OTLP/HTTP (`/v1/traces` is appended); setting it (or the next) turns tracing on; `OTEL_EXPORTER_OTLP_PROTOCOL` (`http/protobuf`, `http/json`), `OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_SERVICE_NAME` (default `agent-runtime-api`, `agent-runtime-worker`, `agent-runtime` for `npm start`), `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_TRACES_SAMPLER(_ARG)` and the other `OTEL_*` variables work as the OpenTelemetry SDK documents them',
    'unset → no tracing, no SDK started',
  ),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: setting(optionalUrl, 'where traces go over OTLP/HTTP, used as is', 'unset → no tracing, no SDK started'),
  OTEL_SDK_DISABLED: setting(
    v.optional(v.pipe(v.string(), v.toLowerCase(), v.picklist(['true', 'false'], 'must be true or false')), 'false'),
    '`true` turns tracing off with an endpoint set',
  ),
  OTEL_TRACES_EXPORTER: setting(optionalNonEmpty, '`none` turns tracing off with an endpoint set', '`otlp`'),
  // Retention (docs/decisions/retention-settings.md): a window such as `30d`, `12h`, `90m`, or `off` (kept for good).
  SVC_RETENTION_SESSIONS: setting(
    retentionString,
    "how long settled sessions are kept from their last activity, with everything they own, objects included: `<n>m`, `<n>h` or `<n>d` from `1m` to `3650d`, or `off`; a project's `retention` overrides it",
    '`off` (kept for good)',
  ),
  SVC_RETENTION_EVENTS: setting(
    retentionString,
    "how long product events are kept (the same grammar); a project's `retention` overrides it",
    '`off` (kept for good)',
  ),
  SVC_RETENTION_SWEEP_INTERVAL_SECONDS: setting(v.optional(integerIn(10, 86_400), '300'), "how often the worker's retention sweep runs (10-86400)"),
  SVC_RETENTION_BATCH_SIZE: setting(
    v.optional(integerIn(1, 10_000), '200'),
    "the retention sweep's batch: session trees per transaction, events per statement, objects per step (1-10000)",
  ),
  SVC_CURRENCY: setting(
    v.optional(v.pipe(v.string(), v.regex(/^[A-Z]{3}$/, 'must be a three-letter ISO 4217 code such as USD')), 'USD'),
    "the ISO 4217 currency of every preset price, cost and budget; presets take the gateway catalog's published prices only when it is `USD`",
  ),
  SVC_SCHEDULE_MIN_INTERVAL_SECONDS: setting(
    v.optional(
      v.pipe(
        v.string(),
        v.transform(Number),
        v.integer('must be an integer'),
        v.minValue(1),
        v.maxValue(60, 'must be at most 60 (a cron expression fires at most once a minute)'),
      ),
      '60',
    ),
    'the shortest `intervalSeconds` a schedule may have (1-60; a cron expression fires at most once a minute); shorter is a `400`',
  ),
};

const EnvironmentSchema = v.object(schemasOf(SETTINGS));

/** The parsed settings; derived from the schema above through `settingsFrom`. */
export type Settings = ReturnType<typeof settingsFrom>;
export type TemporalSecurity = Settings['temporal']['security'];
export type EdgeProxySettings = NonNullable<Settings['edgeProxy']>;
export type HostedSettings = NonNullable<Settings['hosted']>;
export type LimitSettings = Settings['limits'];
export type RetentionSettings = Settings['retention'];
export type RequestRate = NonNullable<LimitSettings['apiKeyRequests']>;

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
  return settingsFrom(e, env, { security, edgeProxy, hosted });
}

type Derived = {
  security: ReturnType<typeof temporalSecurity>;
  edgeProxy: ReturnType<typeof edgeProxySettings>;
  hosted: ReturnType<typeof hostedSettings>;
};

/** The settings the processes use, named for what they do; their type is what this returns. */
function settingsFrom(e: ParsedEnvironment, env: Record<string, string | undefined>, { security, edgeProxy, hosted }: Derived) {
  return {
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    /** How to reach Temporal; `security`: TLS (mTLS with a client pair) and/or an API key for an external cluster. */
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
    /** SVC_OUTBOUND_ALLOW_PRIVATE_NETWORK (or its old name): the address policy lets private destinations through. */
    outboundAllowPrivateNetwork: e.SVC_OUTBOUND_ALLOW_PRIVATE_NETWORK || e.SVC_WEBHOOKS_ALLOW_PRIVATE_NETWORK,
    /** One line for each deprecated setting the environment uses, for the process to log at start. */
    deprecations: deprecationsOf(env),
    /** SVC_WEBHOOK_BATCH_GATHER_MS (activities/webhooks/deliver-batch.ts). */
    webhookBatchGatherMs: e.SVC_WEBHOOK_BATCH_GATHER_MS,
    currency: e.SVC_CURRENCY,
    /** After SIGTERM, reported not ready (`draining`) this long before stopping. */
    shutdownGraceMs: e.SVC_SHUTDOWN_GRACE_MS,
    /** The worker's `/metrics`, `/healthz` and `/readyz` (0: any free port); null: none. */
    workerMetricsPort: e.SVC_WORKER_METRICS_PORT ?? null,
    /** The API process's `/metrics`, `/healthz` and `/readyz` (0: any free port); null: none. */
    apiMetricsPort: e.SVC_API_METRICS_PORT ?? null,
    developmentAllowRemote: e.SVC_DEVELOPMENT_ALLOW_REMOTE,
    /** Check every JSON success answer against its route's documented shape (tests). */
    checkResponses: e.SVC_CHECK_RESPONSES,
    modelBaseUrls: {
      gateway: e.SVC_MODEL_BASE_URL_GATEWAY,
      vendor_a: e.SVC_MODEL_BASE_URL_VENDOR_A,
      vendor_b: e.SVC_MODEL_BASE_URL_VENDOR_B,
      vendor_c: e.SVC_MODEL_BASE_URL_VENDOR_C,
    },
    deploymentPresetsFile: e.SVC_DEPLOYMENT_PRESETS_FILE,
    sandbox: { driver: e.SVC_SANDBOX_DRIVER, snapshotsFile: e.SVC_SANDBOX_SNAPSHOTS_FILE },
    /** ES modules (paths, relative to the working directory) whose platform tools the worker registers, or `builtin:<name>`. */
    platformToolModules: (e.SVC_PLATFORM_TOOL_MODULES ?? '')
      .split(',')
      .map((entry) => entry.trim())
      .filter((entry) => entry !== ''),
    logLevel: e.SVC_LOG_LEVEL,
    /** Set exactly when authMode is edge_proxy. */
    edgeProxy,
    /** Set exactly when authMode is hosted. */
    hosted,
    refreshLifetimeDays: e.SVC_REFRESH_LIFETIME_DAYS,
    /** OpenTelemetry traces: on when an OTLP endpoint is set, unless OTEL_SDK_DISABLED or OTEL_TRACES_EXPORTER=none. */
    tracing: {
      enabled:
        Boolean(e.OTEL_EXPORTER_OTLP_ENDPOINT ?? e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) &&
        e.OTEL_SDK_DISABLED !== 'true' &&
        e.OTEL_TRACES_EXPORTER?.trim() !== 'none',
    },
    /** Request limits and run quotas; null = that limit is off. */
    limits: {
      apiKeyRequests: requestRate(e.SVC_RATE_LIMIT_API_KEY_PER_SECOND, e.SVC_RATE_LIMIT_API_KEY_BURST),
      projectRequests: requestRate(e.SVC_RATE_LIMIT_PROJECT_PER_SECOND, e.SVC_RATE_LIMIT_PROJECT_BURST),
      projectUnsettledRuns: e.SVC_PROJECT_UNSETTLED_RUNS_LIMIT || null,
      projectRunningRuns: e.SVC_PROJECT_RUNNING_RUNS_LIMIT || null,
      runDelegationParallelism: e.SVC_RUN_DELEGATION_PARALLELISM,
      eventStreamsPerPrincipal: e.SVC_EVENT_STREAMS_PER_PRINCIPAL || null,
      eventStreamsPerProject: e.SVC_EVENT_STREAMS_PER_PROJECT || null,
    },
    /** Retention of settled sessions and product events; null minutes = kept for good. */
    retention: {
      sessionsMinutes: e.SVC_RETENTION_SESSIONS,
      eventsMinutes: e.SVC_RETENTION_EVENTS,
      sweepIntervalMs: e.SVC_RETENTION_SWEEP_INTERVAL_SECONDS * 1000,
      batchSize: e.SVC_RETENTION_BATCH_SIZE,
    },
    scheduleMinIntervalSeconds: e.SVC_SCHEDULE_MIN_INTERVAL_SECONDS,
    /** The standard agent protocols served beside the API (doors/): switched on for the installation. */
    doors: { a2a: e.SVC_A2A_SERVER, mcp: e.SVC_MCP_SERVER },
  };
}

/** A rate of 0 switches the bucket off; a burst below one request is raised to one. */
function requestRate(perSecond: number, burst: number): { perSecond: number; burst: number } | null {
  return perSecond > 0 ? { perSecond, burst: Math.max(1, burst) } : null;
}

type ParsedEnvironment = v.InferOutput<typeof EnvironmentSchema>;

function temporalSecurity(e: ParsedEnvironment, problems: string[]) {
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

function edgeProxySettings(e: ParsedEnvironment, problems: string[]) {
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

function hostedSettings(e: ParsedEnvironment, problems: string[]) {
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
