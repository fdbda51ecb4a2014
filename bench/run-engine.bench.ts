/**
 * The run engine against bare Temporal, with an instant fake model (vendor_a, no delay), on a
 * Temporal dev server (free ports, in memory, headless), the machine's PostgreSQL, the real app
 * in process (`app.request`) and the real runtime (`createRuntime`: worker, activities, starter).
 *
 * 1. Sessions created per second: N `POST /sessions` with C in flight (auth, idempotency, the
 *    session transaction, then the run's workflow start after commit), while the worker runs them
 *    as it would. Baseline: N bare `client.workflow.start` of a one-activity workflow, C in flight,
 *    executed by its own worker meanwhile. Target ≥ 0.5×: a session is one Postgres transaction
 *    (8 statements with idempotency; target ≤ 8) plus exactly the baseline's start; measured apart,
 *    that transaction alone runs at about the bare start rate, so "the API adds no more than one
 *    start's worth of work" is half the bare start rate.
 * 2. Orchestration overhead per model turn: K sequential one-turn runs, each timed from the
 *    run's workflow start (the app's run starter, called by the bench) to its workflow result,
 *    minus the time its model call took on the wire (measured in the worker through undici's
 *    diagnostics channels, request created → response complete). A one-turn run carries admission
 *    and settlement too, so this is the per-turn figure's upper bound. Baseline:
 *    `client.workflow.execute` of a workflow running one trivial activity. p50 and p95 over K;
 *    target ≤ 2× (the issue's).
 *
 * Both sides share the process, the dev server and the Temporal client. Figure 1 alternates
 * rounds and drains each side's workflows before the other starts; figure 2 alternates one bare
 * round trip and one run, after a warm-up of both (bundles loaded, connections, plans). Then it
 * prints where the time goes: figure 1 decomposed (API alone, starts alone), Temporal history of
 * sample runs (workflow tasks, each activity), Postgres statements per run by step (admission, the
 * model call's begin, its finish with the settlement) and the whole run's count with `POST /sessions`
 * against issue 51's target (≤ 12); then a run with one caller-tool round trip (`POST /sessions`, the
 * claim and result requests, the worker's statements) against the one-turn run (target ≤ 3 more).
 *
 *   node_modules/.bin/node bench/run-engine.bench.ts
 *   BENCH_STATEMENTS=1 node_modules/.bin/node bench/run-engine.bench.ts   (prints the last run's statements)
 */
import { randomUUID } from 'node:crypto';
import * as diagnostics from 'node:diagnostics_channel';
import { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { eq, inArray } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import { createApp } from '../api/app.ts';
import { createAppDeps } from '../scripts/app-deps.ts';
import { createLogger } from '../config/logger.ts';
import { parseSettings } from '../config/settings.ts';
import { exclusivelyOn, openDatabase, preparing, type Database, type DatabaseHandle } from '../db/client.ts';
import { migrateDatabase } from '../db/migrate.ts';
import * as schema from '../db/schema/index.ts';
import { runWorkflowId } from '../domain/runs/workflow.ts';
import { createRuntime } from '../scripts/runtime.ts';
import type { RunStarter } from '../services/kernel/run-starter.ts';
import { RUN_SEARCH_ATTRIBUTES as runSearchAttributeKeys } from '../domain/runs/workflow.ts';
import { INSTANT_MODEL_API_KEY, startInstantModelServer, VENDOR_A_BASE_URL_ENV } from './instant-model-server.ts';
import { startBareWorker } from './baseline/worker.ts';
import { startBenchTemporal } from './temporal.ts';
import { apiFor, CALLER_LOOKUP_TOOL, percentile, pool, printRecords, REQUEST_LIMITS_OFF, withBenchDatabase, type BenchRecord } from './support.ts';

type Options = {
  /** Sessions (and bare starts) per round of figure 1. */
  sessions?: number;
  concurrency?: number;
  /** Measured one-turn runs (and bare round trips) for figure 2. */
  turns?: number;
  /** Warm-up runs of each side before figure 2 is measured. */
  warmup?: number;
  rounds?: number;
  /** Print the breakdown of where a turn's time goes. */
  profile?: boolean;
};

type StartArgs = Parameters<RunStarter['start']>[0];

export async function run(options: Options = {}): Promise<BenchRecord[]> {
  const settings = { sessions: 200, concurrency: 8, turns: 100, warmup: 20, rounds: 2, profile: true, ...options };
  const logger = createLogger({ level: 'error' });
  const temporal = await startBenchTemporal('run-engine', logger);
  const { devServer, dataDir } = temporal;
  const fake = await startInstantModelServer();
  const modelClock = watchModelCalls(new URL(fake.baseUrl).origin);
  try {
    return await withBenchDatabase(async (url) => {
      const migrations = await openDatabase({ driver: 'postgres', url, maxConnections: 1 });
      await migrateDatabase(migrations);
      await migrations.close();
      // The app's and the worker's handles: openDatabase's postgres.js settings plus a statement counter.
      const apiDatabase = countingDatabase(url, 10);
      const appDatabase = apiDatabase.handle;
      // A model call's statements are counted as two steps: its begin (before the model has answered)
      // and its finish with the settlement (issue 51's per-step counts); one run at a time is measured.
      const workerDatabase = countingDatabase(url, 10, (activity) =>
        activity === 'callModel'
          ? modelClock.calls === 0
            ? 'model call: begin'
            : 'model call: finish + settlement'
          : activity === 'admitRun'
            ? 'admission'
            : activity,
      );
      const appSettings = parseSettings({ SVC_DATA_DIR: dataDir, SVC_LOG_LEVEL: 'error', [VENDOR_A_BASE_URL_ENV]: fake.baseUrl, ...REQUEST_LIMITS_OFF });
      const starter = heldRunStarter();
      const deps = await createAppDeps({ settings: appSettings, logger, database: appDatabase, runStarter: starter });
      const app = createApp(deps);
      const runtime = await createRuntime({
        settings: appSettings,
        logger,
        database: workerDatabase.handle,
        dependencies: { keyring: deps.keyring, deploymentPresets: deps.deploymentPresets, sandboxSnapshots: deps.sandboxSnapshots },
        temporal: { address: devServer.address, namespace: devServer.namespace, taskQueue: `bench-run-${randomUUID()}` },
      });
      starter.target = runtime.runStarter;
      const running = runtime.run();
      const bare = await startBareWorker(devServer.address, devServer.namespace);
      try {
        const client = runtime.client.client;
        const api = await apiFor(app, 'run-engine bench');
        const projectPath = `/v1/projects/${api.projectId}`;
        const provider = await api.call('POST', `${projectPath}/model-providers`, {
          key: 'p-a',
          displayName: 'vendor_a',
          providerType: 'vendor_a',
          apiKey: INSTANT_MODEL_API_KEY,
        });
        await api.call('POST', `${projectPath}/model-presets`, {
          key: 'm-a',
          displayName: 'vendor_a',
          providerId: provider.id,
          model: 'vendor_a/gpt-5.1',
          routing: {},
        });
        const agent = await api.call('POST', `${projectPath}/agents`, {
          name: 'Bench agent',
          initialConfig: { systemPrompt: 'You are terse.', modelPreset: 'm-a', limits: { maxTurns: 4 } },
        });
        const createSession = async (i: number) => {
          const session = await api.call('POST', `${projectPath}/sessions`, { agentId: agent.id, initialMessage: `Hello ${i}.` });
          return session.latestRunId as string;
        };
        const awaitRun = (runId: string) => client.workflow.getHandle(runWorkflowId(runId)).result();
        const bareStart = (i: number) =>
          client.workflow.start('bareWorkflow', { taskQueue: bare.taskQueue, workflowId: `bare-${randomUUID()}`, args: [`hello ${i}`] });
        const bareExecute = (i: number) =>
          client.workflow.execute('bareWorkflow', { taskQueue: bare.taskQueue, workflowId: `bare-${randomUUID()}`, args: [`hello ${i}`] });

        // ---- 1. sessions created per second --------------------------------------------------
        await pool(settings.concurrency * 2, settings.concurrency, async (i) => awaitRun(await createSession(i)));
        await pool(settings.concurrency * 2, settings.concurrency, async (i) => (await bareStart(i)).result());
        let sessionsSeconds = 0;
        let bareSeconds = 0;
        for (let round = 0; round < settings.rounds; round++) {
          const bareHandles: Array<{ result(): Promise<unknown> }> = [];
          bareSeconds += await timed(() => pool(settings.sessions, settings.concurrency, async (i) => bareHandles.push(await bareStart(i))));
          await Promise.all(bareHandles.map((handle) => handle.result())); // drain before the other side
          const runIds: string[] = [];
          sessionsSeconds += await timed(() => pool(settings.sessions, settings.concurrency, async (i) => runIds.push(await createSession(i))));
          await Promise.all(runIds.map(awaitRun));
        }
        const sessionsPerSecond = (settings.sessions * settings.rounds) / sessionsSeconds;
        const barePerSecond = (settings.sessions * settings.rounds) / bareSeconds;

        // ---- 2. orchestration overhead per model turn ---------------------------------------
        starter.hold = true; // the session's own start is held; the measured start is ours
        const statementsBefore = new Map<string, number>();
        const oneTurn = async (i: number) => {
          const runId = await createSession(i);
          const start = starter.held.get(runId);
          if (!start) throw new Error(`run ${runId} was not handed to the run starter`);
          starter.held.delete(runId);
          modelClock.reset();
          const began = performance.now();
          await runtime.runStarter.start(start);
          const state = await awaitRun(runId);
          const total = performance.now() - began;
          if (state !== 'completed') throw new Error(`run ${runId} settled ${String(state)}`);
          if (modelClock.calls !== 1) throw new Error(`run ${runId} made ${modelClock.calls} model calls`);
          return { runId, total, model: modelClock.ms, overhead: total - modelClock.ms };
        };
        const oneBare = async (i: number) => {
          const began = performance.now();
          await bareExecute(i);
          return performance.now() - began;
        };
        for (let i = 0; i < settings.warmup; i++) {
          await oneBare(i);
          await oneTurn(i);
        }
        const turns: Awaited<ReturnType<typeof oneTurn>>[] = [];
        const bareTrips: number[] = [];
        for (const [key, count] of workerDatabase.counts) statementsBefore.set(key, count);
        workerDatabase.outside.clear();
        // One of each in turn, so drift on this shared machine hits both sides alike.
        for (let i = 0; i < settings.turns; i++) {
          bareTrips.push(await oneBare(i));
          // With BENCH_STATEMENTS=1, the last run's statements are printed (its POST and its run).
          const show = process.env.BENCH_STATEMENTS === '1' && i === settings.turns - 1;
          if (show) apiDatabase.texts.current = workerDatabase.texts.current = [];
          turns.push(await oneTurn(i));
          if (show) {
            console.log(`\n  statements of the last run: POST /sessions (API)\n    ${apiDatabase.texts.current!.join('\n    ')}`);
            console.log(`  the run (worker)\n    ${workerDatabase.texts.current!.join('\n    ')}`);
            apiDatabase.texts.current = workerDatabase.texts.current = null;
          }
        }
        starter.hold = false;
        // What the worker sent outside activities meanwhile: its background loops' statements.
        const background = [...workerDatabase.outside].map(([text, count]) => `${count} × ${text}`);
        const statements = new Map<string, number>();
        for (const [key, count] of workerDatabase.counts) statements.set(key, (count - (statementsBefore.get(key) ?? 0)) / turns.length);

        const overhead = turns.map((t) => t.overhead).sort((a, b) => a - b);
        const bareSorted = [...bareTrips].sort((a, b) => a - b);
        const records: BenchRecord[] = [
          {
            name: `sessions created/s through POST /sessions, ${settings.concurrency} in flight (baseline: bare workflow starts/s)`,
            unit: '/s',
            value: sessionsPerSecond,
            baseline: barePerSecond,
            ratio: sessionsPerSecond / barePerSecond,
            target: 0.5,
            better: 'higher',
          },
          ...([50, 95] as const).map((p): BenchRecord => {
            const value = percentile(overhead, p);
            const base = percentile(bareSorted, p);
            return {
              name: `orchestration overhead per model turn p${p}, instant model (baseline: bare workflow + activity round trip)`,
              unit: 'ms',
              value,
              baseline: base,
              ratio: value / base,
              target: 2,
              better: 'lower',
            };
          }),
        ];

        if (settings.profile) {
          // Figure 1 decomposed: the API alone (starts held, no worker load), then the starts alone.
          starter.hold = true;
          const apiBefore = apiDatabase.counts.get('outside activities') ?? 0;
          const heldIds: string[] = [];
          const apiOnly =
            settings.sessions / (await timed(() => pool(settings.sessions, settings.concurrency, async (i) => heldIds.push(await createSession(i)))));
          const apiStatements = ((apiDatabase.counts.get('outside activities') ?? 0) - apiBefore) / heldIds.length;
          starter.hold = false;
          const startsOnly =
            heldIds.length / (await timed(() => pool(heldIds.length, settings.concurrency, (i) => runtime.runStarter.start(starter.held.get(heldIds[i]!)!))));
          await Promise.all(heldIds.map(awaitRun));
          // The same bare start, carrying the run's four search attributes.
          const withAttributes = (i: number) =>
            client.workflow.start('bareWorkflow', {
              taskQueue: bare.taskQueue,
              workflowId: `bare-${randomUUID()}`,
              args: [`hello ${i}`],
              typedSearchAttributes: [
                { key: runSearchAttributeKeys.projectId, value: api.projectId },
                { key: runSearchAttributeKeys.sessionId, value: randomUUID() },
                { key: runSearchAttributeKeys.agentId, value: agent.id as string },
                { key: runSearchAttributeKeys.runState, value: 'queued' },
              ],
            });
          const attributeHandles: Array<{ result(): Promise<unknown> }> = [];
          const bareWithAttributes =
            settings.sessions / (await timed(() => pool(settings.sessions, settings.concurrency, async (i) => attributeHandles.push(await withAttributes(i)))));
          await Promise.all(attributeHandles.map((handle) => handle.result()));
          const plainHandles: Array<{ result(): Promise<unknown> }> = [];
          const barePlain =
            settings.sessions / (await timed(() => pool(settings.sessions, settings.concurrency, async (i) => plainHandles.push(await bareStart(i)))));
          await Promise.all(plainHandles.map((handle) => handle.result()));
          console.log('\n  profile of figure 1');
          console.log(
            `    POST /sessions/s with the workflow start held (no Temporal call, no runs executing): ${apiOnly.toFixed(1)} /s, ${apiStatements.toFixed(1)} Postgres statements per request (target ≤ 8: ${Number(apiStatements.toFixed(1)) <= 8 ? 'PASS' : 'FAIL'}; the background loops' few statements in the window are counted too)`,
          );
          console.log(
            `    run workflow starts/s alone (runStarter.start: 4 search attributes, USE_EXISTING), runs executing meanwhile: ${startsOnly.toFixed(1)} /s`,
          );
          console.log(
            `    bare workflow starts/s with the run's 4 search attributes: ${bareWithAttributes.toFixed(1)} /s; without: ${barePlain.toFixed(1)} /s`,
          );
          await printProfile({
            client,
            database: appDatabase.db,
            turns,
            bareTrips,
            statements,
            apiStatements,
            background,
            bareSample: await sampleBare(client, bare.taskQueue, 20),
          });
          await printToolRoundTripStatements({ api, projectPath, awaitRun, apiDatabase, workerDatabase, statements, apiStatements });
        }
        return records;
      } finally {
        await runtime.shutdown();
        await running.catch(() => {});
        await bare.shutdown();
        await deps.eventTail.stop();
        await workerDatabase.handle.close();
        await apiDatabase.handle.close();
      }
    });
  } finally {
    modelClock.stop();
    await fake.close();
    await temporal.stop();
  }
}

const sum = (counts: Map<string, number>) => [...counts.values()].reduce((a, b) => a + b, 0);

/**
 * Issue 51's per-step count for a caller tool: a run whose first model turn calls a caller-owned
 * tool, answered through the API (claim, then result), then replies. Its statements — `POST
 * /sessions`, the claim and the result requests, and everything the worker sends — against the
 * one-turn run's (target: at most 3 more). Polling for the call is not counted.
 */
async function printToolRoundTripStatements(input: {
  api: Awaited<ReturnType<typeof apiFor>>;
  projectPath: string;
  awaitRun: (runId: string) => Promise<unknown>;
  apiDatabase: ReturnType<typeof countingDatabase>;
  workerDatabase: ReturnType<typeof countingDatabase>;
  statements: Map<string, number>;
  apiStatements: number;
}) {
  const { api, projectPath } = input;
  const apiCounts = input.apiDatabase.counts;
  const workerCounts = input.workerDatabase.counts;
  const agent = await api.call('POST', `${projectPath}/agents`, {
    name: 'Bench caller-tool agent',
    initialConfig: {
      systemPrompt: 'You are terse.',
      modelPreset: 'm-a',
      limits: { maxTurns: 4 },
      tools: [CALLER_LOOKUP_TOOL],
    },
  });
  const samples: Array<{ post: number; caller: number; worker: number }> = [];
  for (let i = 0; i < 12; i++) {
    // With BENCH_STATEMENTS=1, the last run's statements are printed (its claim and result, and the worker's).
    const show = process.env.BENCH_STATEMENTS === '1' && i === 11;
    if (show) input.workerDatabase.texts.current = [];
    const workerBefore = sum(workerCounts);
    const postBefore = sum(apiCounts);
    const session = await api.call('POST', `${projectPath}/sessions`, { agentId: agent.id, initialMessage: 'call lookup' });
    const post = sum(apiCounts) - postBefore;
    const runId = session.latestRunId as string;
    let call: { id: string } | undefined;
    for (let waited = 0; !call; waited++) {
      if (waited > 2000) throw new Error(`run ${runId} made no tool call`);
      [call] = (await api.call('GET', `${projectPath}/tool-calls?runId=${runId}`, undefined)).data as Array<{ id: string }>;
      if (!call) await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const callerBefore = sum(apiCounts);
    if (show) input.apiDatabase.texts.current = [];
    const claim = await api.call('POST', `${projectPath}/tool-calls/${call.id}/claim`, {});
    await api.call('POST', `${projectPath}/tool-calls/${call.id}/result`, {
      fence: claim.fence,
      safeResult: { version: 1, status: 'success', value: { ok: true } },
    });
    const caller = sum(apiCounts) - callerBefore;
    if (show) {
      console.log(`\n  statements of the last caller-tool run's claim and result (API)\n    ${input.apiDatabase.texts.current!.join('\n    ')}`);
      input.apiDatabase.texts.current = null;
    }
    const state = await input.awaitRun(runId);
    if (state !== 'completed') throw new Error(`caller-tool run ${runId} settled ${String(state)}`);
    if (show) {
      console.log(`  the caller-tool run (worker)\n    ${input.workerDatabase.texts.current!.join('\n    ')}`);
      input.workerDatabase.texts.current = null;
    }
    // Two warm-ups (plans and caches made), then measured.
    if (i >= 2) samples.push({ post, caller, worker: sum(workerCounts) - workerBefore });
  }
  const mean = (pick: (sample: (typeof samples)[number]) => number) => samples.reduce((a, sample) => a + pick(sample), 0) / samples.length;
  const oneTurn = input.apiStatements + sum(input.statements);
  const toolRun = mean((x) => x.post) + mean((x) => x.caller) + mean((x) => x.worker);
  console.log(
    `  a run with one caller-tool round trip: POST /sessions ${mean((x) => x.post).toFixed(1)} + claim and result ${mean((x) => x.caller).toFixed(1)} + the run ` +
      `${mean((x) => x.worker).toFixed(1)} = ${toolRun.toFixed(1)} statements, ${(toolRun - oneTurn).toFixed(1)} more than a one-turn run ` +
      `(target ≤ 3 more)${toolRun - oneTurn > 3 ? ' — MISSED' : ''}`,
  );
}

/** Forwards starts to `target`, or (while `hold`) keeps them so the bench starts the run itself. */
function heldRunStarter() {
  const starter = {
    target: null as RunStarter | null,
    hold: false,
    held: new Map<string, StartArgs>(),
    async start(run: StartArgs) {
      if (starter.hold) {
        starter.held.set(run.runId, run);
        return;
      }
      await starter.target?.start(run);
    },
    requestCancellation: async (runId: string) => starter.target?.requestCancellation(runId),
    notify: async (...args: Parameters<RunStarter['notify']>) => starter.target?.notify(...args),
  };
  return starter;
}

/**
 * A worker database handle like openDatabase's (postgres.js, same pool settings) whose every
 * statement sent (begin and commit included) is counted by the activity that sent it.
 */
function countingDatabase(url: string, maxConnections: number, stepOf: (activity: string) => string = (activity) => activity) {
  const counts = new Map<string, number>();
  /** The statements sent outside activities (the background loops'), by their first words. */
  const outside = new Map<string, number>();
  /** While set, each statement's text is kept here, prefixed by the activity that sent it. */
  const texts: { current: string[] | null } = { current: null };
  const client = postgres(url, {
    max: maxConnections,
    onnotice: () => {},
    types: {},
    debug: (_connection: number, query: string) => {
      let key = 'outside activities';
      try {
        key = stepOf(Context.current().info.activityType);
      } catch {
        // not in an activity (reconciler) or sent from the pool's queue
      }
      counts.set(key, (counts.get(key) ?? 0) + 1);
      if (key === 'outside activities') {
        const start = query.replace(/\s+/g, ' ').trim().slice(0, 90);
        outside.set(start, (outside.get(start) ?? 0) + 1);
      }
      texts.current?.push(`${key}: ${query.replace(/\s+/g, ' ').slice(0, 220)}`);
    },
  });
  const db = drizzle(preparing(client), { schema }) as unknown as Database;
  const handle: DatabaseHandle = {
    db,
    driver: 'postgres',
    async listen(channel, handler) {
      const subscription = await client.listen(channel, (payload) => handler(payload));
      return async () => subscription.unlisten();
    },
    async notify(channel, payload) {
      await client`select pg_notify(${channel}, ${payload})`;
    },
    exclusively: (key, fn) => exclusivelyOn(url, key, fn),
    poolStats: () => ({ size: maxConnections, transactionsOpen: 0 }), // the bench reads no metrics
    close: () => client.end({ timeout: 5 }),
  };
  return { handle, counts, outside, texts };
}

/**
 * Model time as the worker sees it: from the fetch request's creation to its complete response,
 * for requests to the fake model's origin (undici's diagnostics channels, which Node's fetch uses).
 */
function watchModelCalls(origin: string) {
  const started = new WeakMap<object, number>();
  const state = { ms: 0, calls: 0 };
  const onCreate = (message: unknown) => {
    const { request } = message as { request: { origin?: string } };
    if (String(request.origin) === origin) started.set(request, performance.now());
  };
  const onDone = (message: unknown) => {
    const { request } = message as { request: object };
    const at = started.get(request);
    if (at === undefined) return;
    started.delete(request);
    state.ms += performance.now() - at;
    state.calls += 1;
  };
  diagnostics.subscribe('undici:request:create', onCreate);
  diagnostics.subscribe('undici:request:trailers', onDone);
  diagnostics.subscribe('undici:request:error', onDone);
  return {
    get ms() {
      return state.ms;
    },
    get calls() {
      return state.calls;
    },
    reset() {
      state.ms = 0;
      state.calls = 0;
    },
    stop() {
      diagnostics.unsubscribe('undici:request:create', onCreate);
      diagnostics.unsubscribe('undici:request:trailers', onDone);
      diagnostics.unsubscribe('undici:request:error', onDone);
    },
  };
}

/** Development login, a `*` API key, and a JSON caller that fails loudly on any non-2xx. */
async function timed(fn: () => Promise<unknown>): Promise<number> {
  const began = performance.now();
  await fn();
  return (performance.now() - began) / 1000;
}

const mean = (values: number[]) => (values.length === 0 ? NaN : values.reduce((a, b) => a + b, 0) / values.length);

// ---- profile: where a turn's time goes -----------------------------------------------------

type Timestamp = { seconds?: unknown; nanos?: number | null } | null | undefined;
const ms = (ts: Timestamp) => Number(ts?.seconds ?? 0) * 1000 + (ts?.nanos ?? 0) / 1e6;

type Breakdown = {
  total: number;
  workflowTasks: { count: number; queued: number; processing: number; queuedEach: number[] };
  activities: Map<string, { queued: number; running: number }>;
};

/** Durations from a workflow's history: start → close, workflow tasks, each activity. */
async function historyBreakdown(client: Client, workflowId: string): Promise<Breakdown> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const events = history.events ?? [];
  const time = new Map<string, number>();
  const idOf = (event: (typeof events)[number]) => String(event.eventId);
  const activities = new Map<string, { queued: number; running: number }>();
  const typeOf = new Map<string, string>();
  const wft = { count: 0, queued: 0, processing: 0, queuedEach: [] as number[] };
  let first = NaN;
  let last = NaN;
  for (const event of events) {
    const at = ms(event.eventTime);
    time.set(idOf(event), at);
    if (Number.isNaN(first)) first = at;
    last = at;
    if (event.workflowTaskStartedEventAttributes) {
      wft.count += 1;
      const queued = at - time.get(String(event.workflowTaskStartedEventAttributes.scheduledEventId))!;
      wft.queued += queued;
      wft.queuedEach.push(queued);
    }
    if (event.workflowTaskCompletedEventAttributes) wft.processing += at - time.get(String(event.workflowTaskCompletedEventAttributes.startedEventId))!;
    if (event.activityTaskScheduledEventAttributes) typeOf.set(idOf(event), event.activityTaskScheduledEventAttributes.activityType?.name ?? '?');
    if (event.activityTaskStartedEventAttributes) {
      const scheduled = String(event.activityTaskStartedEventAttributes.scheduledEventId);
      activities.set(typeOf.get(scheduled)!, { queued: at - time.get(scheduled)!, running: 0 });
    }
    if (event.activityTaskCompletedEventAttributes) {
      const entry = activities.get(typeOf.get(String(event.activityTaskCompletedEventAttributes.scheduledEventId))!)!;
      entry.running = at - time.get(String(event.activityTaskCompletedEventAttributes.startedEventId))!;
    }
  }
  return { total: last - first, workflowTasks: wft, activities };
}

async function sampleBare(client: Client, taskQueue: string, count: number): Promise<Breakdown[]> {
  const out: Breakdown[] = [];
  for (let i = 0; i < count; i++) {
    const workflowId = `bare-profile-${randomUUID()}`;
    await client.workflow.execute('bareWorkflow', { taskQueue, workflowId, args: ['profile'] });
    out.push(await historyBreakdown(client, workflowId));
  }
  return out;
}

function summarize(label: string, sample: Breakdown[]) {
  const line = (name: string, values: number[]) => console.log(`    ${name.padEnd(34)} ${mean(values).toFixed(2)} ms`);
  console.log(`  ${label} (mean of ${sample.length}, server timestamps):`);
  line(
    'workflow start → close',
    sample.map((b) => b.total),
  );
  const tasks = sample[0]?.workflowTasks.count ?? 0;
  line(
    `${tasks} workflow tasks: queued (sum)`,
    sample.map((b) => b.workflowTasks.queued),
  );
  console.log(
    `    ${'  queued, task by task'.padEnd(34)} ${Array.from({ length: tasks }, (_, i) => mean(sample.map((b) => b.workflowTasks.queuedEach[i] ?? NaN)).toFixed(1)).join(' / ')} ms`,
  );
  line(
    `${tasks} workflow tasks: processing (sum)`,
    sample.map((b) => b.workflowTasks.processing),
  );
  for (const type of sample[0]?.activities.keys() ?? []) {
    line(
      `${type}: queued`,
      sample.map((b) => b.activities.get(type)?.queued ?? NaN),
    );
    line(
      `${type}: running`,
      sample.map((b) => b.activities.get(type)?.running ?? NaN),
    );
  }
}

async function printProfile(input: {
  client: Client;
  database: Database;
  turns: Array<{ runId: string; total: number; model: number; overhead: number }>;
  bareTrips: number[];
  statements: Map<string, number>;
  /** `POST /sessions`'s statements per request (the API's side of a one-turn run). */
  apiStatements: number;
  /** The worker's statements outside activities during the measured runs (its background loops'). */
  background: string[];
  bareSample: Breakdown[];
}) {
  const { client, turns } = input;
  console.log('\n  profile of the measured one-turn runs');
  console.log(
    `    client-side: run total p50 ${percentile(
      [...turns.map((t) => t.total)].sort((a, b) => a - b),
      50,
    ).toFixed(2)} ms, model on the wire mean ${mean(turns.map((t) => t.model)).toFixed(2)} ms, bare round trip p50 ${percentile(
      [...input.bareTrips].sort((a, b) => a - b),
      50,
    ).toFixed(2)} ms`,
  );
  const runIds = turns.map((t) => t.runId);
  const invocations = await input.database.select().from(schema.modelInvocations).where(inArray(schema.modelInvocations.runId, runIds));
  const rows = await input.database.select().from(schema.runs).where(inArray(schema.runs.id, runIds));
  console.log(
    `    model_invocations startedAt → completedAt mean ${mean(invocations.map((row) => row.completedAt!.getTime() - row.startedAt.getTime())).toFixed(2)} ms (includes model resolution and the start/complete writes)`,
  );
  console.log(
    `    runs admittedAt → settledAt mean ${mean(rows.map((row) => row.settledAt!.getTime() - (row.admittedAt ?? row.createdAt).getTime())).toFixed(2)} ms`,
  );
  const sample = [];
  for (const turn of turns.slice(-20)) sample.push(await historyBreakdown(client, runWorkflowId(turn.runId)));
  summarize('run workflow, one turn', sample);
  summarize('bare workflow + activity', input.bareSample);
  const total = [...input.statements.values()].reduce((a, b) => a + b, 0);
  console.log(`  Postgres statements sent by the worker per one-turn run (begin/commit included): ${total.toFixed(1)}`);
  for (const [key, count] of [...input.statements].sort((a, b) => b[1] - a[1])) console.log(`    ${key.padEnd(34)} ${count.toFixed(1)}`);
  if (input.background.length > 0) console.log(`    outside activities, all ${input.turns.length} runs:\n      ${input.background.join('\n      ')}`);
  // Issue 51's count: the whole one-turn run, POST /sessions included, one statement per round
  // trip; the worker's background loops' statements in the window (listed above) are not the run's.
  const perRun = input.apiStatements + total;
  const background = input.statements.get('outside activities') ?? 0;
  const own = perRun - background;
  console.log(
    `  Postgres statements per one-turn run, POST /sessions ${input.apiStatements.toFixed(1)} + the run ${total.toFixed(1)} = ${perRun.toFixed(1)}, ` +
      `of which the run's own ${own.toFixed(1)} (target ≤ 12: ${Number(own.toFixed(1)) <= 12 ? 'PASS' : 'MISSED'}) and the worker's background loops ${background.toFixed(1)}`,
  );
  const [one] = await input.database.select({ state: schema.runs.state }).from(schema.runs).where(eq(schema.runs.id, runIds[0]!));
  if (one?.state !== 'completed') throw new Error('a measured run did not complete');
}

if (import.meta.main) {
  printRecords(await run());
  process.exit(0);
}
