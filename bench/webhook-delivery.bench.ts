/**
 * Webhook delivery end to end: events committed through `appendProductEvents`, delivered by the
 * real runtime (dispatcher → delivery workflow on a Temporal dev server → signed POST) to a local
 * HTTP receiver, on the machine's PostgreSQL.
 *
 * 1. Delivered events per second: `events` events appended by `writers` writers as fast as the
 *    log takes them, timed from the first append to the receipt of the last event. Baseline: the
 *    raw rate at which the log accepts events (the same writers, same call, a project without a
 *    webhook, nothing delivering), measured in the same run. Target ≥ 0.8×. Beside it, the same
 *    figure against the append rate reached in that phase (≥ 0.95×: delivery keeps pace), and
 *    the catch-up rate of a backlog committed while the webhook was disabled (full batches).
 * 2. Lag from commit to receipt, p50 and p95, at a steady rate (one event every `intervalMs`),
 *    for the webhook and, as the baseline, for the project event tail that the SSE feed reads (the
 *    other consumer of the same log), on the same events. The webhook adds a Temporal signal, a
 *    workflow task, an activity and an HTTP request per batch; target ≤ 30× the tail's lag.
 *
 *   node_modules/.bin/node bench/webhook-delivery.bench.ts
 */
import { randomBytes, randomUUID } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { createApp } from '../api/app.ts';
import { createAppDeps } from '../scripts/app-deps.ts';
import { createLogger } from '../config/logger.ts';
import { parseSettings } from '../config/settings.ts';
import { openDatabase } from '../db/client.ts';
import { migrateDatabase } from '../db/migrate.ts';
import { projects } from '../db/schema/index.ts';
import { createRuntime } from '../scripts/runtime.ts';
import { appendProductEvent } from '../services/kernel/events/index.ts';
import { latestProjectPosition } from '../services/kernel/events/index.ts';
import { startBenchTemporal } from './temporal.ts';
import { apiFor, benchContext, percentile, pool, printRecords, REQUEST_LIMITS_OFF, throughput, withBenchDatabase, type BenchRecord } from './support.ts';

type Options = { events?: number; writers?: number; lagEvents?: number; intervalMs?: number };

export async function run(options: Options = {}): Promise<BenchRecord[]> {
  const settings = { events: 5_000, writers: 8, lagEvents: 300, intervalMs: 20, ...options };
  const logger = createLogger({ level: 'error' });
  const temporal = await startBenchTemporal('webhooks', logger);
  const { devServer, dataDir } = temporal;
  const receiver = await startReceiver();
  try {
    return await withBenchDatabase(async (url) => {
      const database = await openDatabase({ driver: 'postgres', url, maxConnections: settings.writers + 10 });
      await migrateDatabase(database);
      const appSettings = parseSettings({ SVC_DATA_DIR: dataDir, SVC_LOG_LEVEL: 'error', SVC_OUTBOUND_ALLOW_PRIVATE_NETWORK: 'true', ...REQUEST_LIMITS_OFF });
      const deps = await createAppDeps({ settings: appSettings, logger, database });
      const runtime = await createRuntime({
        settings: appSettings,
        logger,
        database,
        dependencies: { keyring: deps.keyring, deploymentPresets: deps.deploymentPresets, sandboxSnapshots: deps.sandboxSnapshots },
        temporal: { address: devServer.address, namespace: devServer.namespace, taskQueue: `bench-webhooks-${randomUUID()}` },
        eventTail: deps.eventTail,
      });
      const running = runtime.run();
      try {
        const api = await apiFor(createApp(deps), 'webhook bench');
        const { projectId, organizationId } = api;
        const ctx = benchContext(database);
        const append = (project: string, i: number) =>
          appendProductEvent(ctx, {
            organizationId,
            projectId: project,
            aggregateType: 'bench',
            aggregateId: randomUUID(),
            kind: 'bench.appended',
            publicPayload: { i },
          });
        const webhook = await api.call('POST', `/v1/projects/${projectId}/event-webhooks`, {
          displayName: 'Bench receiver',
          endpointUrl: receiver.url,
          signingSecret: `whsec_${randomBytes(32).toString('base64')}`,
        });
        const [other] = await database.db
          .insert(projects)
          .values({ organizationId, slug: `raw-${randomUUID()}`, name: 'Raw' })
          .returning();

        // Warm up both paths: plans, connections, the delivery workflow and its first batches.
        await throughput(settings.writers, 500, (_writer, i) => append(other!.id, i));
        await pool(200, settings.writers, (i) => append(projectId, i));
        await receiver.waitForPosition(await latestProjectPosition({ db: database.db, input: { projectId } }));

        // ---- 1. throughput -------------------------------------------------------------------
        const raw = await throughput(settings.writers, 3_000, (_writer, i) => append(other!.id, i));
        const started = performance.now();
        await pool(settings.events, settings.writers, (i) => append(projectId, i));
        const appended = performance.now();
        await receiver.waitForPosition(await latestProjectPosition({ db: database.db, input: { projectId } }));
        const delivered = settings.events / ((receiver.lastReceiptAt - started) / 1000);
        const appendedInPhase = settings.events / ((appended - started) / 1000);
        const lastReceiptLagMs = receiver.lastReceiptAt - appended;

        // ---- 1b. catch-up: a backlog committed while the webhook was disabled -------------------
        const webhookPath = `/v1/projects/${projectId}/event-webhooks/${webhook.id}`;
        await api.call('PATCH', webhookPath, { enabled: false });
        await pool(settings.events, settings.writers, (i) => append(projectId, i));
        const backlogTail = await latestProjectPosition({ db: database.db, input: { projectId } });
        const enabledAt = performance.now();
        await api.call('PATCH', webhookPath, { enabled: true });
        await receiver.waitForPosition(backlogTail);
        const catchUp = settings.events / ((receiver.lastReceiptAt - enabledAt) / 1000);

        // ---- 2. lag --------------------------------------------------------------------------
        const subscription = await runtime.eventTail.subscribe(projectId, await latestProjectPosition({ db: database.db, input: { projectId } }));
        const tailReceipts = new Map<string, number>();
        const consuming = (async () => {
          for await (const batch of subscription) for (const row of batch) tailReceipts.set(row.id, performance.now());
        })();
        const commits = new Map<string, number>();
        for (let i = 0; i < settings.lagEvents; i++) {
          const event = await append(projectId, i);
          commits.set(event.id, performance.now());
          await sleep(settings.intervalMs);
        }
        await receiver.waitForPosition(await latestProjectPosition({ db: database.db, input: { projectId } }));
        subscription.close();
        await consuming;
        const webhookLag = [...commits].map(([id, at]) => receiver.receipts.get(id)! - at).sort((a, b) => a - b);
        const tailLag = [...commits].map(([id, at]) => tailReceipts.get(id)! - at).sort((a, b) => a - b);

        console.log(
          `  while delivering: ${appendedInPhase.toFixed(0)} appends/s on the webhook's project; the last event arrived ${lastReceiptLagMs.toFixed(0)} ms after the last append`,
        );
        console.log(`  ${receiver.requests} requests, ${receiver.receipts.size} events received, ${receiver.duplicates} duplicates`);
        const record = (name: string, unit: string, value: number, baseline: number, target: number, better: 'higher' | 'lower'): BenchRecord => ({
          name,
          unit,
          value,
          baseline,
          ratio: value / baseline,
          target,
          better,
        });
        return [
          record('webhook events delivered per second while appending vs log appends per second', 'events/s', delivered, raw, 0.8, 'higher'),
          record('webhook events delivered per second vs appends per second in the same phase', 'events/s', delivered, appendedInPhase, 0.95, 'higher'),
          record('webhook backlog delivered per second vs log appends per second', 'events/s', catchUp, raw, 1, 'higher'),
          record('commit-to-receipt lag p50, webhook vs event tail', 'ms', percentile(webhookLag, 50), Math.max(percentile(tailLag, 50), 0.1), 30, 'lower'),
          record('commit-to-receipt lag p95, webhook vs event tail', 'ms', percentile(webhookLag, 95), Math.max(percentile(tailLag, 95), 0.1), 30, 'lower'),
        ];
      } finally {
        await runtime.shutdown();
        await running.catch(() => {});
        await deps.eventTail.stop();
        await database.close();
      }
    });
  } finally {
    await receiver.close();
    await temporal.stop();
  }
}

/** A receiver that notes when each event id first arrived and the highest position seen. */
async function startReceiver() {
  const receipts = new Map<string, number>();
  let highest = 0n;
  let requests = 0;
  let duplicates = 0;
  let lastReceiptAt = 0;
  const waiters = new Set<() => void>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const now = performance.now();
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data: { throughPosition: string; events: Array<{ id: string }> } };
      requests += 1;
      for (const event of body.data.events) {
        if (receipts.has(event.id)) duplicates += 1;
        else receipts.set(event.id, now);
      }
      lastReceiptAt = now;
      highest = BigInt(body.data.throughPosition) > highest ? BigInt(body.data.throughPosition) : highest;
      res.writeHead(204).end();
      for (const waiter of waiters) waiter();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    receipts,
    get requests() {
      return requests;
    },
    get duplicates() {
      return duplicates;
    },
    get lastReceiptAt() {
      return lastReceiptAt;
    },
    waitForPosition(position: bigint) {
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`receiver stuck at position ${highest}, waiting for ${position}`)), 120_000);
        const check = () => {
          if (highest < position) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
        check();
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

if (import.meta.main) {
  printRecords(await run());
}
