/**
 * What money costs the run path, and the usage ledger's speed (issue 35, parts 3 and 4), on the
 * machine's PostgreSQL with the real runtime and the instant model:
 *
 * 1. Budget check. One-turn runs (`POST /sessions` → settled) in alternating blocks: sessions
 *    with a budget in a project with a monthly budget (the check reads the month's rollup: 31
 *    days × 50 groups seeded), against sessions without one in a project without one. Target: at
 *    most 2 ms more at p50, as a ratio to the run without a budget. The check's statement alone
 *    is timed as well (`reserveModelTurn`, with and without budgets).
 * 2. Usage ledger. 1,000,000 model invocations over one month (10,000 runs of 100 calls) are
 *    seeded, and the rollup built from them as the completions would have. `GET /usage?groupBy=day`
 *    for the month against the bare `group by` over the same invocation rows, in the same run.
 *    Targets: p50 ≤ 100 ms, and ≤ 1.5× the bare query.
 *
 *   node_modules/.bin/node bench/usage-budgets.bench.ts
 *   BENCH_LEDGER_INVOCATIONS=200000 node_modules/.bin/node bench/usage-budgets.bench.ts
 */
import { sql } from 'drizzle-orm';
import { createLogger } from '../config/logger.ts';
import { rowsOf, type Executor } from '../db/client.ts';
import { reserveModelTurn } from '../services/runtime/model-invocations/index.ts';
import { systemContext } from '../services/kernel/service-context.ts';
import { withTransaction } from '../services/kernel/transaction.ts';
import { withBenchRuntimeApp } from './runtime-app.ts';
import { percentile, printRecords, type BenchRecord } from './support.ts';

type Options = { invocations?: number; blocks?: number; runsPerBlock?: number; warmup?: number; ledgerReads?: number };

const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
const p50 = (values: number[]) => percentile(sorted(values), 50);

export async function run(options: Options = {}): Promise<BenchRecord[]> {
  const settings = {
    invocations: Number(process.env.BENCH_LEDGER_INVOCATIONS ?? 1_000_000),
    blocks: 4,
    runsPerBlock: 15,
    warmup: 5,
    ledgerReads: 21,
    ...options,
  };
  return withBenchRuntimeApp('usage-budgets', {}, async ({ api, projectPath: p, database, timedSession }) => {
    const agent = await api.call('POST', `${p}/agents`, {
      name: 'Plain',
      initialConfig: { systemPrompt: 'Answer.', modelPreset: 'm-a', limits: { maxTurns: 4 } },
    });
    const presets = await api.call('GET', `${p}/model-presets`, undefined);
    const preset = presets.data.find((entry: { key: string }) => entry.key === 'm-a');
    await api.call('PATCH', `${p}/model-presets/${preset.id}`, { prices: { input: 1, output: 4 } });
    await seedMonthRollup(database.db, api.projectId, agent.id);
    for (let i = 0; i < settings.warmup; i++) await timedSession(agent.id, 'warm up');

    // 1. The budget check on the run path, alternating blocks.
    const budgeted = async () => {
      const began = performance.now();
      const session = await api.call('POST', `${p}/sessions`, {
        agentId: agent.id,
        initialMessage: 'hello',
        budget: { maxCost: 1_000, maxTokens: 1_000_000_000 },
      });
      await waitSettled(database.db, session.latestRunId);
      return performance.now() - began;
    };
    const plain = async () => {
      const began = performance.now();
      const session = await api.call('POST', `${p}/sessions`, { agentId: agent.id, initialMessage: 'hello' });
      await waitSettled(database.db, session.latestRunId);
      return performance.now() - began;
    };
    const without: number[] = [];
    const withBudget: number[] = [];
    for (let block = 0; block < settings.blocks; block++) {
      await api.call('PATCH', p, { budget: null });
      for (let i = 0; i < settings.runsPerBlock; i++) without.push(await plain());
      await api.call('PATCH', p, { budget: { maxMonthlyCost: 1_000_000, maxMonthlyTokens: 1_000_000_000_000 } });
      for (let i = 0; i < settings.runsPerBlock; i++) withBudget.push(await budgeted());
    }
    const runWithout = p50(without);
    const runWith = p50(withBudget);
    console.log(
      `  one-turn run p50: ${runWith.toFixed(1)} ms with session and project budgets, ${runWithout.toFixed(1)} ms without (+${(runWith - runWithout).toFixed(2)} ms)`,
    );

    // The check's statement alone: the budgets read with the run's lock, with and without budgets set.
    const check = await timeCheck(database.db, api.projectId, agent.id);
    console.log(`  the check itself (reserveModelTurn) p50: ${check.withBudget.toFixed(2)} ms with budgets, ${check.without.toFixed(2)} ms without`);

    // 2. The ledger over a month of invocations.
    const seeding = performance.now();
    const month = await seedInvocations(database.db, api.projectId, agent, settings.invocations);
    console.log(
      `  seeded ${settings.invocations.toLocaleString('en-US')} invocations for ${month.from}..${month.to} in ${((performance.now() - seeding) / 1000).toFixed(1)} s`,
    );
    const bare: number[] = [];
    const ledger: number[] = [];
    let bareRows: Array<{ day: string; cost: string; calls: string }> = [];
    let answer: { totals: { invocations: number; cost: number }; groups: unknown[] } | null = null;
    for (let i = 0; i < settings.ledgerReads; i++) {
      let began = performance.now();
      bareRows = rowsOf(
        await database.db.execute(sql`
          select to_char(date_trunc('day', completed_at at time zone 'UTC'), 'YYYY-MM-DD') as day, count(*) as calls, count(distinct run_id) as runs,
            sum(input_tokens) as input_tokens, sum(output_tokens) as output_tokens, sum(cache_read_tokens) as cache_read_tokens, sum(cache_write_tokens) as cache_write_tokens, sum(cost_nanos) as cost
          from model_invocations
          where project_id = ${api.projectId}::uuid and status = 'succeeded' and completed_at >= ${month.from}::date and completed_at < ${month.to}::date + 1
          group by 1 order by 1`),
      );
      bare.push(performance.now() - began);
      began = performance.now();
      answer = await api.call('GET', `${p}/usage?from=${month.from}&to=${month.to}&groupBy=day`, undefined);
      ledger.push(performance.now() - began);
    }
    const bareCalls = bareRows.reduce((sum, row) => sum + Number(row.calls), 0);
    if (answer!.totals.invocations !== bareCalls) throw new Error(`the ledger counted ${answer!.totals.invocations} calls, the bare query ${bareCalls}`);
    const ledgerP50 = p50(ledger);
    const bareP50 = p50(bare);
    console.log(
      `  GET /usage?groupBy=day p50 ${ledgerP50.toFixed(1)} ms; the bare group by over the invocations ${bareP50.toFixed(1)} ms; both count ${bareCalls.toLocaleString('en-US')} calls`,
    );
    return [
      {
        name: 'one-turn run p50 with session and project budgets (baseline: the same run without a budget; target: at most 2 ms more)',
        unit: 'ms',
        value: runWith,
        baseline: runWithout,
        ratio: runWith / runWithout,
        target: Number(((runWithout + 2) / runWithout).toFixed(4)),
        better: 'lower',
      },
      {
        name: `usage ledger for a month of ${settings.invocations.toLocaleString('en-US')} invocations grouped by day, p50 (baseline: the bare group by over the same rows)`,
        unit: 'ms',
        value: ledgerP50,
        baseline: bareP50,
        ratio: ledgerP50 / bareP50,
        target: 1.5,
        better: 'lower',
      },
      {
        name: 'usage ledger for the month grouped by day, p50 (against a ceiling of 100 ms)',
        unit: 'ms',
        value: ledgerP50,
        baseline: 100,
        ratio: ledgerP50 / 100,
        target: 1,
        better: 'lower',
        against: 'ceiling',
      },
    ];
  });
}

async function waitSettled(db: Executor, runId: string): Promise<void> {
  for (;;) {
    const [run] = rowsOf<{ state: string }>(await db.execute(sql`select state from runs where id = ${runId}::uuid`));
    if (run && ['completed', 'failed', 'cancelled', 'timed_out'].includes(run.state)) {
      if (run.state !== 'completed') throw new Error(`run ${runId} settled ${run.state}`);
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/** The month so far in the rollup: 50 groups (agents × presets × keys) a day, as a busy project has. */
async function seedMonthRollup(db: Executor, projectId: string, agentId: string): Promise<void> {
  await db.execute(sql`
    insert into usage_daily (organization_id, project_id, day, agent_id, preset, api_key_id, runs, invocations, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_nanos)
    select p.organization_id, p.id, date_trunc('month', now())::date + d, ${agentId}::uuid, 'seeded-' || g, gen_random_uuid(), 10, 40, 40000, 4000, 0, 0, 56000000
    from projects p, generate_series(0, 30) d, generate_series(1, 50) g
    where p.id = ${projectId}::uuid and date_trunc('month', now())::date + d <= now()::date`);
}

/** `reserveModelTurn` timed on fresh turn ids of one run, with the project's and session's budgets set and not. */
async function timeCheck(db: Executor, projectId: string, agentId: string): Promise<{ withBudget: number; without: number }> {
  const ctx = systemContext({ db, logger: createLogger({ level: 'error' }) });
  const [run] = rowsOf<{ id: string; session_id: string }>(
    await db.execute(
      sql`select r.id, r.session_id from runs r join sessions s on s.id = r.session_id where s.agent_id = ${agentId}::uuid order by r.created_at desc limit 1`,
    ),
  );
  const times = { withBudget: [] as number[], without: [] as number[] };
  for (let round = 0; round < 200; round++) {
    const budgeted = round % 2 === 0;
    await db.execute(sql`update projects set budget_monthly_max_cost_nanos = ${budgeted ? 1e15 : null} where id = ${projectId}::uuid`);
    await db.execute(sql`update sessions set budget_max_cost_nanos = ${budgeted ? 1e15 : null} where id = ${run!.session_id}::uuid`);
    const began = performance.now();
    await withTransaction(ctx, (tx) => reserveModelTurn(tx, { runId: run!.id, turnId: `bench-${round}`, maxTurns: 1_000 }));
    (budgeted ? times.withBudget : times.without).push(performance.now() - began);
  }
  await db.execute(sql`update projects set budget_monthly_max_cost_nanos = null where id = ${projectId}::uuid`);
  return { withBudget: p50(times.withBudget), without: p50(times.without) };
}

/**
 * Last month, in bulk: 100 completed calls per run on runs of the bench agent, spread over the
 * month, with the rollup built from them (what each call's completion adds, summed).
 */
async function seedInvocations(
  db: Executor,
  projectId: string,
  agent: { id: string; latestVersionId: string },
  invocations: number,
): Promise<{ from: string; to: string }> {
  const runsNeeded = Math.ceil(invocations / 100);
  const [range] = rowsOf<{ from: string; to: string }>(
    await db.execute(
      sql`select to_char(date_trunc('month', now()) - interval '1 month', 'YYYY-MM-DD') as "from", to_char(date_trunc('month', now()) - interval '1 day', 'YYYY-MM-DD') as "to"`,
    ),
  );
  const chunk = 1_000;
  for (let done = 0; done < runsNeeded; done += chunk) {
    const n = Math.min(chunk, runsNeeded - done);
    await db.execute(sql`
      with p as (select organization_id from projects where id = ${projectId}::uuid),
      t as (insert into threads (organization_id, project_id, created_at) select p.organization_id, ${projectId}::uuid, ${range!.from}::timestamptz from p, generate_series(1, ${n}) returning id, organization_id),
      s as (
        insert into sessions (organization_id, project_id, thread_id, agent_id, agent_version_id, status, created_at, last_activity_at)
        select t.organization_id, ${projectId}::uuid, t.id, ${agent.id}::uuid, ${agent.latestVersionId}::uuid, 'completed', ${range!.from}::timestamptz, ${range!.from}::timestamptz from t
        returning id, thread_id, organization_id
      ),
      r as (
        insert into runs (organization_id, project_id, thread_id, session_id, agent_version_id, state, input_public, settled_at, wall_deadline_at, created_at, updated_at)
        select s.organization_id, ${projectId}::uuid, s.thread_id, s.id, ${agent.latestVersionId}::uuid, 'completed', '{"message":"old"}'::jsonb, ${range!.from}::timestamptz, ${range!.from}::timestamptz, ${range!.from}::timestamptz, ${range!.from}::timestamptz from s
        returning id, organization_id
      )
      insert into model_invocations (organization_id, project_id, run_id, turn_id, attempt, status, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_nanos, agent_id, preset, started_at, completed_at)
      select x.organization_id, ${projectId}::uuid, x.id, 'turn-' || x.g, 1, 'succeeded', 1000 + x.g, 100, 50, 0, 1400000 + x.g, ${agent.id}::uuid, 'm-a', x.at, x.at + interval '1 second'
      from (
        select r.id, r.organization_id, g, ${range!.from}::timestamptz + random() * (extract(epoch from (${range!.to}::date + 1)::timestamptz - ${range!.from}::timestamptz) - 2) * interval '1 second' as at
        from r, generate_series(1, 100) g
      ) x`);
  }
  await db.execute(sql`
    insert into usage_daily (organization_id, project_id, day, agent_id, preset, api_key_id, runs, invocations, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_nanos)
    select organization_id, project_id, (completed_at at time zone 'UTC')::date, agent_id, preset, null,
      count(*) filter (where completed_at = first_at), count(*), sum(input_tokens), sum(output_tokens), sum(cache_read_tokens), sum(cache_write_tokens), sum(cost_nanos)
    from (
      select i.*, min(i.completed_at) over (partition by i.run_id) as first_at
      from model_invocations i
      where i.project_id = ${projectId}::uuid and i.completed_at >= ${range!.from}::date and i.completed_at < ${range!.to}::date + 1
    ) calls
    group by 1, 2, 3, 4, 5`);
  await db.execute(sql`analyze model_invocations`);
  await db.execute(sql`analyze usage_daily`);
  return range!;
}

if (import.meta.url === `file://${process.argv[1]}`) printRecords(await run());
