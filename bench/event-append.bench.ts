/**
 * Event appends per second on one hot project through `appendProductEvent`, against the bare
 * "update counter + insert row" transaction through the same postgres.js driver, measured in the
 * same run on the same database. Target: at least 0.8× the baseline.
 *
 *   node_modules/.bin/node bench/event-append.bench.ts
 *
 * Needs the machine's PostgreSQL (BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432);
 * creates and drops its own `svc_bench_<random>` database.
 */
import { randomUUID } from 'node:crypto';
import postgres from 'postgres';
import { projectEventCounters } from '../db/schema/index.ts';
import { appendProductEvent } from '../services/kernel/events/index.ts';
import { benchContext, openBenchDatabase, printRecords, throughput, withBenchDatabase, type BenchRecord } from './support.ts';

export async function run(options: { writers?: number; roundMs?: number; rounds?: number } = {}): Promise<BenchRecord[]> {
  const writers = options.writers ?? 8;
  const roundMs = options.roundMs ?? 3000;
  const rounds = options.rounds ?? 3;

  return withBenchDatabase(async (url) => {
    const { database, organizationId, createProject } = await openBenchDatabase(url, writers);
    const raw = postgres(url, { max: writers, onnotice: () => {} });
    try {
      const ctx = benchContext(database);
      const ourProject = await createProject();
      const baseProject = await createProject();
      await database.db.insert(projectEventCounters).values({ projectId: baseProject, organizationId, lastPosition: 0n });
      const aggregates = Array.from({ length: writers }, () => randomUUID());

      const ours = (writer: number, i: number) =>
        appendProductEvent(ctx, {
          organizationId,
          projectId: ourProject,
          aggregateType: 'run',
          aggregateId: aggregates[writer]!,
          kind: 'run.progressed',
          publicPayload: { writer, i },
        });
      // The least a gap-free log can do: bump the counter under its row lock, insert the row.
      const baseline = (writer: number, i: number) =>
        raw.begin(async (sql) => {
          const [row] = await sql<{ last_position: string }[]>`
            update project_event_counters set last_position = last_position + 1
            where project_id = ${baseProject} returning last_position`;
          await sql`
            insert into product_events (organization_id, project_id, project_position, aggregate_type, aggregate_id,
                                        aggregate_sequence, kind, public_payload, occurred_at)
            values (${organizationId}, ${baseProject}, ${row!.last_position}, 'run', ${aggregates[writer]!},
                    ${row!.last_position}, 'run.progressed', ${sql.json({ writer, i })}, ${new Date().toISOString()})`;
        });

      // Warm both paths (connections, plans), then alternate rounds so drift hits both alike.
      await throughput(writers, 500, ours);
      await throughput(writers, 500, baseline);
      let oursTotal = 0;
      let baselineTotal = 0;
      for (let round = 0; round < rounds; round++) {
        baselineTotal += await throughput(writers, roundMs, baseline);
        oursTotal += await throughput(writers, roundMs, ours);
      }
      const value = oursTotal / rounds;
      const base = baselineTotal / rounds;
      return [
        {
          name: `event appends/s, one hot project, ${writers} writers`,
          unit: 'events/s',
          value,
          baseline: base,
          ratio: value / base,
          target: 0.8,
          better: 'higher',
        },
      ];
    } finally {
      await raw.end({ timeout: 5 });
      await database.close();
    }
  });
}

if (import.meta.main) {
  printRecords(await run());
}
