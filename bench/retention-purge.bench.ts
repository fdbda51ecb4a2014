/**
 * Retention's cost to the run path (issue 34 part 4), on the machine's PostgreSQL with the real
 * runtime and the instant model:
 *
 * A backlog of expired sessions (by default 20,000, each with a settled run, 8 messages and 4
 * product events: 160,000 messages, 80,000 events) is seeded into the bench project. Then
 * one-turn runs (`POST /sessions` → settled) are timed in alternating blocks: without a purge
 * (baseline), and while the retention sweep deletes the backlog as the worker does (a tick of
 * `SVC_RETENTION_BATCH_SIZE` = 200 session trees and 200 events, then the sweeper's pause, twice as
 * long as the tick took, again while work is left). p50 with the purge against p50 without; target ≤ 1.2×. Also prints how much
 * the purge deleted while it was measured and its rate.
 *
 *   node_modules/.bin/node bench/retention-purge.bench.ts
 *   BENCH_RETENTION_SESSIONS=5000 node_modules/.bin/node bench/retention-purge.bench.ts
 */
import { sql } from 'drizzle-orm';
import { rowsOf, type Executor } from '../db/client.ts';
import { newRetentionSweepState, pauseAfterTick, runRetentionTick } from '../processes/retention-sweeper.ts';
import { systemContext } from '../services/kernel/service-context.ts';
import { createLogger } from '../config/logger.ts';
import { withBenchRuntimeApp } from './runtime-app.ts';
import { percentile, printRecords, type BenchRecord } from './support.ts';

type Options = { sessions?: number; blocks?: number; runsPerBlock?: number; warmup?: number };

export async function run(options: Options = {}): Promise<BenchRecord[]> {
  const settings = { sessions: Number(process.env.BENCH_RETENTION_SESSIONS ?? 20_000), blocks: 4, runsPerBlock: 10, warmup: 5, ...options };
  return withBenchRuntimeApp(
    'retention-purge',
    { env: { SVC_OUTBOUND_ALLOW_PRIVATE_NETWORK: 'true' } },
    async ({ api, projectPath: p, database, deps, timedSession }) => {
      const agent = await api.call('POST', `${p}/agents`, {
        name: 'Plain',
        initialConfig: { systemPrompt: 'Answer.', modelPreset: 'm-a', limits: { maxTurns: 4 } },
      });
      // Seeded first: the log's oldest positions are the backlog's (retention keeps a suffix of the log).
      const seeding = performance.now();
      await seedBacklog(database.db, { projectId: api.projectId, agentId: agent.id, agentVersionId: agent.latestVersionId, sessions: settings.sessions });
      console.log(
        `  seeded ${settings.sessions} expired sessions (${settings.sessions * 8} messages, ${settings.sessions * 4} events) in ${((performance.now() - seeding) / 1000).toFixed(1)} s`,
      );
      for (let i = 0; i < settings.warmup; i++) await timedSession(agent.id, 'warm up');

      // The sweep as the worker runs it, switched on and off between blocks.
      const ctx = systemContext({ db: database.db, logger: createLogger({ level: 'error' }) });
      const storeDeps = { keyring: deps.keyring, storagePolicy: deps.storagePolicy };
      const retention = { sessionsMinutes: 1, eventsMinutes: 1, batchSize: 200 };
      const state = newRetentionSweepState();
      let purging = false;
      let stopped = false;
      let drained = false;
      const purged = { sessions: 0, events: 0, ticks: 0, busyMs: 0 };
      const sweeper = (async () => {
        while (!stopped) {
          if (!purging || drained) {
            await new Promise((resolve) => setTimeout(resolve, 20));
            continue;
          }
          const began = performance.now();
          const tick = await runRetentionTick(ctx, storeDeps, retention, state);
          const tickMs = performance.now() - began;
          purged.busyMs += tickMs;
          purged.sessions += tick.sessions;
          purged.events += tick.events;
          purged.ticks += 1;
          if (!tick.more) drained = true;
          await new Promise((resolve) => setTimeout(resolve, pauseAfterTick(tickMs)));
        }
      })();

      const without: number[] = [];
      const during: number[] = [];
      try {
        // Alternating blocks, so drift on this shared machine hits both sides alike.
        for (let block = 0; block < settings.blocks; block++) {
          purging = false;
          for (let i = 0; i < settings.runsPerBlock; i++) without.push(await timedSession(agent.id, 'hello'));
          purging = true;
          for (let i = 0; i < settings.runsPerBlock; i++) {
            if (drained) break;
            during.push(await timedSession(agent.id, 'hello'));
          }
        }
      } finally {
        stopped = true;
        await sweeper;
      }
      const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
      const withoutP50 = percentile(sorted(without), 50);
      const duringP50 = percentile(sorted(during), 50);
      const left = rowsOf<{ n: number }>(
        await database.db.execute(
          sql`select count(*)::int as n from sessions where project_id = ${api.projectId} and last_activity_at < now() - interval '1 day'`,
        ),
      )[0]!.n;
      console.log(
        `  one-turn run p50: ${withoutP50.toFixed(1)} ms without a purge (${without.length} runs), ${duringP50.toFixed(1)} ms during it (${during.length} runs${drained ? '; the backlog drained before the last block ended' : ''})`,
      );
      console.log(
        `  purged while measured: ${purged.sessions} sessions and ${purged.events} events in ${purged.ticks} ticks (${(purged.busyMs / Math.max(1, purged.ticks)).toFixed(0)} ms per tick, ` +
          `${((purged.sessions / Math.max(1, purged.busyMs)) * 1000).toFixed(0)} sessions/s while busy); ${left} expired sessions left`,
      );
      return [
        {
          name: 'one-turn run p50 while retention purges a large backlog (baseline: the same runs without a purge, alternating blocks)',
          unit: 'ms',
          value: duringP50,
          baseline: withoutP50,
          ratio: duringP50 / withoutP50,
          target: 1.2,
          better: 'lower',
        },
      ];
    },
  );
}

/**
 * Expired sessions in bulk, as the service would have left them two days ago: a thread, a
 * session, a settled run, 8 messages and 4 session events each (positions taken from the
 * project's counter, which is moved past them).
 */
async function seedBacklog(db: Executor, input: { projectId: string; agentId: string; agentVersionId: string; sessions: number }) {
  const { projectId, agentId, agentVersionId, sessions } = input;
  const chunk = 2_000;
  for (let done = 0; done < sessions; done += chunk) {
    const n = Math.min(chunk, sessions - done);
    await db.execute(sql`
      with p as (select organization_id from projects where id = ${projectId}),
      t as (
        insert into threads (organization_id, project_id, last_message_sequence, created_at)
        select p.organization_id, ${projectId}, 8, now() - interval '2 days' from p, generate_series(1, ${n})
        returning id, organization_id
      ),
      s as (
        insert into sessions (organization_id, project_id, thread_id, agent_id, agent_version_id, status, created_at, last_activity_at)
        select t.organization_id, ${projectId}, t.id, ${agentId}, ${agentVersionId}, 'completed', now() - interval '2 days', now() - interval '2 days' from t
        returning id, thread_id, organization_id
      ),
      r as (
        insert into runs (organization_id, project_id, thread_id, session_id, agent_version_id, state, input_public, settled_at, wall_deadline_at, created_at, updated_at)
        select s.organization_id, ${projectId}, s.thread_id, s.id, ${agentVersionId}, 'completed', '{"message":"old"}'::jsonb, now() - interval '2 days', now() - interval '1 day', now() - interval '2 days', now() - interval '2 days' from s
        returning id, thread_id, organization_id
      )
      insert into messages (organization_id, project_id, thread_id, run_id, sequence, role, content, step_key, created_at)
      select r.organization_id, ${projectId}, r.thread_id, r.id, g, case when g % 2 = 1 then 'user' else 'assistant' end, jsonb_build_object('text', repeat('old words ', 40)), 'step-' || g, now() - interval '2 days'
      from r, generate_series(1, 8) g
    `);
  }
  // The setup's own events (if any) are as old as the backlog, ahead of it in the log.
  await db.execute(sql`update product_events set occurred_at = now() - interval '2 days' where project_id = ${projectId}`);
  await db.execute(sql`
    with base as (select coalesce((select last_position from project_event_counters where project_id = ${projectId}), 0) as last),
    numbered as (
      select s.id, s.organization_id, row_number() over (order by s.id) as n from sessions s
      where s.project_id = ${projectId} and s.last_activity_at < now() - interval '1 day'
    )
    insert into product_events (organization_id, project_id, project_position, aggregate_type, aggregate_id, aggregate_sequence, kind, public_payload, session_id, occurred_at)
    select numbered.organization_id, ${projectId}, base.last + (numbered.n - 1) * 4 + g, 'session', numbered.id, g, 'session.seeded', jsonb_build_object('sessionId', numbered.id), numbered.id, now() - interval '2 days'
    from numbered, base, generate_series(1, 4) g
  `);
  await db.execute(sql`
    insert into project_event_counters (project_id, organization_id, last_position)
    select ${projectId}, organization_id, (select max(project_position) from product_events where project_id = ${projectId}) from projects where id = ${projectId}
    on conflict (project_id) do update set last_position = excluded.last_position
  `);
}

if (import.meta.main) {
  printRecords(await run());
}
