import { sql } from 'drizzle-orm';
import { Gauge } from 'prom-client';
import { rowsOf, type Database } from '../../../db/client.ts';
import type { Logger } from '../../../config/logger.ts';
import { RUN_STATES, isSettled } from '../../../domain/runs/states.ts';
import { metricsRegistry } from './registry.ts';

const UNSETTLED = RUN_STATES.filter((state) => !isSettled(state));

type Snapshot = {
  runs: Map<string, number>;
  approvals: { pending: number; oldestSeconds: number };
  webhooks: Array<{ webhookId: string; oldestSeconds: number }>;
  /** Per project with memory stores, the sums of its stores' counters. */
  memory: Array<{ projectId: string; memories: number; bytes: number; versions: number }>;
};

/** Scrapes closer together than this share one reading (several gauges, one set of queries). */
const SNAPSHOT_TTL_MS = 1_000;

/**
 * Gauges of what the database holds now, read when Prometheus scrapes (four queries, none
 * scanning more than a table of configuration rows): runs in each unsettled state, pending
 * approvals and the oldest one's age, per enabled webhook the age of the oldest committed event it
 * has not delivered (0 when caught up), and per project the memories, bytes and versions of its
 * memory stores (the sums of the counters each store keeps exact: no memory is read).
 * The worker serves them (`observeRuntimeState` in its composition root), so an installation
 * reports each row once per worker process; dashboards take the `max` across instances.
 */
export function observeRuntimeState(db: Database, logger: Logger): void {
  source = { db, logger };
  cached = null;
  if (!registered) registerGauges();
  registered = true;
}

let source: { db: Database; logger: Logger } | null = null;
let registered = false;
let cached: { at: number; snapshot: Promise<Snapshot | null> } | null = null;

function snapshot(): Promise<Snapshot | null> {
  const now = Date.now();
  const from = source;
  if (!from) return Promise.resolve(null);
  if (!cached || now - cached.at > SNAPSHOT_TTL_MS) {
    cached = {
      at: now,
      snapshot: readSnapshot(from.db).catch((error: unknown) => {
        // A scrape during a database outage leaves these series out rather than failing the page.
        from.logger.warn('metrics could not read the database', { err: error });
        return null;
      }),
    };
  }
  return cached.snapshot;
}

/** A gauge read from the shared snapshot: emptied, then `fill`ed (left empty when the read failed). */
function snapshotGauge<L extends string>(options: {
  name: string;
  help: string;
  labelNames?: readonly L[];
  fill(gauge: Gauge<L>, read: Snapshot): void;
}): void {
  new Gauge<L>({
    name: options.name,
    help: options.help,
    labelNames: options.labelNames ?? [],
    registers: [metricsRegistry],
    async collect() {
      const read = await snapshot();
      this.reset();
      if (read) options.fill(this, read);
    },
  });
}

function registerGauges(): void {
  snapshotGauge({
    name: 'agent_runtime_runs_unsettled',
    help: 'Runs not settled yet, by state (queued, running, waiting_for_tool, waiting_for_approval, retry_scheduled)',
    labelNames: ['state'],
    fill: (gauge, read) => UNSETTLED.forEach((state) => gauge.set({ state }, read.runs.get(state) ?? 0)),
  });
  snapshotGauge({
    name: 'agent_runtime_approvals_pending',
    help: 'Approvals waiting for a decision',
    fill: (gauge, read) => gauge.set(read.approvals.pending),
  });
  snapshotGauge({
    name: 'agent_runtime_approvals_oldest_pending_age_seconds',
    help: 'Age of the oldest approval waiting for a decision (0 when none waits)',
    fill: (gauge, read) => gauge.set(read.approvals.oldestSeconds),
  });
  snapshotGauge({
    name: 'agent_runtime_webhook_oldest_undelivered_age_seconds',
    help: 'Per enabled webhook, the age of the oldest committed event it has not delivered yet (0 when caught up)',
    labelNames: ['webhook_id'],
    fill: (gauge, read) => read.webhooks.forEach((row) => gauge.set({ webhook_id: row.webhookId }, row.oldestSeconds)),
  });
  // Per project, never per store: a project's store count is the tenant's to grow, its names are text.
  snapshotGauge({
    name: 'agent_runtime_memory_store_memories',
    help: "Per project, the memories in its memory stores (the sum of the stores' memoryCount)",
    labelNames: ['project_id'],
    fill: (gauge, read) => read.memory.forEach((row) => gauge.set({ project_id: row.projectId }, row.memories)),
  });
  snapshotGauge({
    name: 'agent_runtime_memory_store_bytes',
    help: "Per project, the bytes of the current content of its memory stores' memories (the sum of the stores' sizeBytes)",
    labelNames: ['project_id'],
    fill: (gauge, read) => read.memory.forEach((row) => gauge.set({ project_id: row.projectId }, row.bytes)),
  });
  snapshotGauge({
    name: 'agent_runtime_memory_store_versions',
    help: "Per project, the memory versions its memory stores keep, redacted ones included (the sum of the stores' versionCount)",
    labelNames: ['project_id'],
    fill: (gauge, read) => read.memory.forEach((row) => gauge.set({ project_id: row.projectId }, row.versions)),
  });
}

async function readSnapshot(db: Database): Promise<Snapshot> {
  const [runRows, approvalRows, webhookRows, memoryRows] = await Promise.all([
    db.execute(
      sql`select state, count(*)::int as count from runs where state in ${sql.raw(`(${UNSETTLED.map((state) => `'${state}'`).join(', ')})`)} group by state`,
    ),
    db.execute(
      sql`select count(*)::int as pending, coalesce(extract(epoch from now() - min(created_at)), 0)::float8 as oldest from approvals where status = 'pending'`,
    ),
    // The webhook's next event by position (the primary key's order): one index probe each.
    db.execute(sql`
      select w.id as webhook_id,
             coalesce(extract(epoch from now() - (
               select e.occurred_at from product_events e
               where e.project_id = w.project_id and e.project_position > w.delivered_position
               order by e.project_position limit 1
             )), 0)::float8 as oldest
      from event_webhooks w where w.enabled`),
    // The stores' own counters, kept by every write: a scan of the stores, never of their memories.
    db.execute(sql`
      select project_id, sum(memory_count)::float8 as memories, sum(size_bytes)::float8 as bytes, sum(version_count)::float8 as versions
      from memory_stores group by project_id`),
  ]);
  const approvals = rowsOf<{ pending: number; oldest: number }>(approvalRows)[0];
  return {
    runs: new Map(rowsOf<{ state: string; count: number }>(runRows).map((row) => [row.state, Number(row.count)])),
    approvals: { pending: Number(approvals?.pending ?? 0), oldestSeconds: Math.max(0, Number(approvals?.oldest ?? 0)) },
    webhooks: rowsOf<{ webhook_id: string; oldest: number }>(webhookRows).map((row) => ({
      webhookId: row.webhook_id,
      oldestSeconds: Math.max(0, Number(row.oldest)),
    })),
    memory: rowsOf<{ project_id: string; memories: number; bytes: number; versions: number }>(memoryRows).map((row) => ({
      projectId: row.project_id,
      memories: Number(row.memories),
      bytes: Number(row.bytes),
      versions: Number(row.versions),
    })),
  };
}
