/**
 * An idempotent replay against a bare primary-key select. The replay path is
 * `executeIdempotently` finding a completed record and deciding to replay it (one lookup of the
 * record by its primary key, the request-hash comparison and the 24-hour window check); the
 * baseline is the bare primary-key select of the same row through the same postgres.js driver.
 * Target: at most 1.2× the baseline's time per operation.
 *
 *   node_modules/.bin/node bench/idempotency-replay.bench.ts
 */
import { randomUUID } from 'node:crypto';
import postgres from 'postgres';
import { principals } from '../db/schema/index.ts';
import type { Actor } from '../services/kernel/service-context.ts';
import { executeIdempotently } from '../services/kernel/idempotency/index.ts';
import { hashRequestBody } from '../services/kernel/idempotency/index.ts';
import { benchContext, median, openBenchDatabase, printRecords, withBenchDatabase, type BenchRecord } from './support.ts';

export async function run(options: { operations?: number; rounds?: number } = {}): Promise<BenchRecord[]> {
  const operations = options.operations ?? 3000;
  const rounds = options.rounds ?? 4;
  return withBenchDatabase(async (url) => {
    const { database, organizationId, createProject } = await openBenchDatabase(url, 1); // one connection, like the baseline
    const raw = postgres(url, { max: 1, onnotice: () => {} });
    try {
      const projectId = await createProject();
      const [principal] = await database.db
        .insert(principals)
        .values({ organizationId, projectId, kind: 'api_key', subject: `api_key:${randomUUID()}`, scopes: ['*'] })
        .returning();
      const actor: Actor = {
        principalId: principal!.id,
        organizationId,
        projectId,
        kind: 'api_key',
        subject: principal!.subject,
        scopes: ['*'],
        displayName: null,
        organizationRole: null,
        projectRole: null,
        apiKeyId: null,
      };
      const ctx = { ...benchContext(database), actor };
      const body = JSON.stringify({ slug: 'bench', name: 'Bench project' });
      const scope = { principalId: actor.principalId, route: `POST /v1/projects`, idempotencyKey: 'bench-key' };
      const requestHash = hashRequestBody(body);
      const first = await executeIdempotently({
        ctx,
        input: { scope, requestHash },
        run: async () => ({ status: 201, body: JSON.parse(body), headers: { 'content-type': 'application/json' } }),
      });
      if (first.kind !== 'executed') throw new Error('setup failed');

      const replay = async () => {
        const outcome = await executeIdempotently({
          ctx,
          input: { scope, requestHash: hashRequestBody(body) },
          run: async () => {
            throw new Error('a replay must not run the effect');
          },
        });
        if (outcome.kind !== 'replay') throw new Error('expected a replay');
      };
      const bare = async () => {
        const rows = await raw`select * from idempotency_records
          where principal_id = ${scope.principalId} and route = ${scope.route} and idempotency_key = ${scope.idempotencyKey}`;
        if (rows.length !== 1) throw new Error('expected one row');
      };
      // Interleave the two operations one by one and compare per-operation medians, so machine
      // drift and GC pauses hit both sides alike.
      const ours: number[] = [];
      const base: number[] = [];
      for (let i = 0; i < operations * rounds; i++) {
        const t0 = performance.now();
        await bare();
        const t1 = performance.now();
        await replay();
        const t2 = performance.now();
        if (i >= operations / 2) {
          base.push((t1 - t0) * 1000);
          ours.push((t2 - t1) * 1000);
        }
      }
      const value = median(ours);
      const baseline = median(base);
      return [
        {
          name: 'idempotent replay vs bare primary-key select (median)',
          unit: 'µs/op',
          value,
          baseline,
          ratio: value / baseline,
          target: 1.2,
          better: 'lower',
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
