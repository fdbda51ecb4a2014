import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The process's Prometheus metrics (docs/decisions/metrics-counting.md): one registry per process, read
 * by `GET /metrics` on the operator port. Labels are bounded and carry no secret or text: ids of
 * projects, agents and webhooks (a tenant's configuration, not its traffic), provider types, preset keys,
 * states, outcomes and error codes — never a run, session or message id.
 *
 * Counters and histograms count what this process did (its commits, its calls); Prometheus sums
 * them across processes. The state gauges (`state-gauges.ts`) read the database and are served by
 * the worker only, so several processes do not report the same rows twice.
 */
export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry });

const PREFIX = 'agent_runtime_';
const registers = [metricsRegistry];

/** Seconds from a few milliseconds to the run's 48-hour ceiling. */
const RUN_SECONDS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 6 * 3600, 48 * 3600];
/** Queue and admission waits: mostly milliseconds, minutes when a project is at its running-runs limit. */
const QUEUE_SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900];
/** One model attempt: bounded by its five-minute deadline. */
const MODEL_SECONDS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300];
const HTTP_SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export const metrics = {
  runsCreated: new Counter({
    name: `${PREFIX}runs_created_total`,
    help: 'Runs queued (first turns, follow-ups, resumes, delegated runs), by agent',
    labelNames: ['agent_id'],
    registers,
  }),
  runsSettled: new Counter({
    name: `${PREFIX}runs_settled_total`,
    help: 'Runs settled, by final state and agent',
    labelNames: ['agent_id', 'state'],
    registers,
  }),
  runDuration: new Histogram({
    name: `${PREFIX}run_duration_seconds`,
    help: 'From a run being queued to its settling, by final state',
    labelNames: ['state'],
    buckets: RUN_SECONDS,
    registers,
  }),
  runQueueTime: new Histogram({
    name: `${PREFIX}run_queue_seconds`,
    help: 'From a run being queued to its admission (first running)',
    buckets: QUEUE_SECONDS,
    registers,
  }),

  modelCalls: new Counter({
    name: `${PREFIX}model_calls_total`,
    help: 'Model call attempts, by provider type, preset and outcome (succeeded, retryable_error, error, cancelled)',
    labelNames: ['provider_type', 'preset', 'outcome'],
    registers,
  }),
  modelCallErrors: new Counter({
    name: `${PREFIX}model_call_errors_total`,
    help: 'Failed model call attempts, by provider type and error code',
    labelNames: ['provider_type', 'error_code'],
    registers,
  }),
  modelCallDuration: new Histogram({
    name: `${PREFIX}model_call_duration_seconds`,
    help: 'One model call attempt, by provider type, preset and outcome',
    labelNames: ['provider_type', 'preset', 'outcome'],
    buckets: MODEL_SECONDS,
    registers,
  }),
  modelTokens: new Counter({
    name: `${PREFIX}model_tokens_total`,
    help: 'Tokens of successful model calls, by provider type, preset and kind (input, output, cache_read, cache_write)',
    labelNames: ['provider_type', 'preset', 'kind'],
    registers,
  }),
  modelCost: new Counter({
    name: `${PREFIX}model_cost_total`,
    help: "What successful model calls cost at their presets' prices, in the installation's currency (SVC_CURRENCY; unpriced presets add 0), by provider type and preset",
    labelNames: ['provider_type', 'preset'],
    registers,
  }),

  toolCalls: new Counter({
    name: `${PREFIX}tool_calls_total`,
    help: 'Tool calls ended, by owner (caller, platform) and outcome (succeeded, failed, expired, denied, cancelled)',
    labelNames: ['owner', 'outcome'],
    registers,
  }),
  approvalsEnded: new Counter({
    name: `${PREFIX}approvals_ended_total`,
    help: 'Approvals decided or expired, by outcome (approved, denied, expired)',
    labelNames: ['outcome'],
    registers,
  }),

  webhookDeliveries: new Counter({
    name: `${PREFIX}webhook_deliveries_total`,
    help: 'Webhook batch delivery attempts, by outcome (delivered, or the lastErrorCode: http_status, timeout, connection_failed, destination_blocked, endpoint_gone, signing_key_unavailable)',
    labelNames: ['outcome'],
    registers,
  }),
  webhookDeliveryDuration: new Histogram({
    name: `${PREFIX}webhook_delivery_duration_seconds`,
    help: 'One webhook batch POST, request to answer',
    buckets: HTTP_SECONDS,
    registers,
  }),

  httpRequests: new Counter({
    name: `${PREFIX}http_requests_total`,
    help: 'API requests answered, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'],
    registers,
  }),
  httpRequestDuration: new Histogram({
    name: `${PREFIX}http_request_duration_seconds`,
    help: 'API request handling time to the response head, by method and route pattern',
    labelNames: ['method', 'route'],
    buckets: HTTP_SECONDS,
    registers,
  }),
  rateLimited: new Counter({
    name: `${PREFIX}rate_limited_total`,
    help: '429 answers, by the limit that refused (details.limit)',
    labelNames: ['limit'],
    registers,
  }),
  sseConnections: new Gauge({
    name: `${PREFIX}sse_connections_open`,
    help: 'Open event streams, by stream (events: the native feed; anthropic: the compatible session stream)',
    labelNames: ['stream'],
    registers,
  }),
};

/** Where a pool's figures come from: the database handle of this process. */
export type PoolStats = { size: number; transactionsOpen: number };

let poolStats: (() => PoolStats) | null = null;
new Gauge({
  name: `${PREFIX}db_pool_size`,
  help: 'Connections this process may open to the database (PGlite: 1)',
  registers,
  collect() {
    if (poolStats) this.set(poolStats().size);
  },
});
new Gauge({
  name: `${PREFIX}db_transactions_open`,
  help: 'Transactions holding a pooled connection now; at the pool size, further work waits for a connection',
  registers,
  collect() {
    if (poolStats) this.set(poolStats().transactionsOpen);
  },
});

/** The composition root names the process's database pool once. */
export function observeDatabasePool(stats: () => PoolStats): void {
  poolStats = stats;
}
