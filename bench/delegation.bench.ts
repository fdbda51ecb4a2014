/**
 * Delegation round trip, on the machine's PostgreSQL with the real runtime and an instant model:
 * a coordinator run whose first turn calls `delegate_agent`, the child run (its own session and
 * one instant model turn, a Temporal child workflow) answering, and the coordinator's reply,
 * POST /sessions → settled. Baseline: two one-turn runs of plain sessions one after the other,
 * the same number of runs and model turns without the delegation machinery. p50; target ≤ 1.5×.
 * Beside it, Temporal's own ratio for the shape, on the same dev server: a bare workflow doing a
 * turn, a child workflow doing one, and a turn, against two bare one-activity workflows one after
 * the other (all started eagerly, as the service's runs are): the child workflow's start (never
 * eager) and its end's delivery to the parent are rounds the two plain runs do not pay.
 * Then parallel delegation (issue 49): a coordinator (`maxParallel` 4) whose first turn calls
 * `delegate_agent` four times at once, to a child whose model takes 500 ms to answer, against the
 * same coordinator calling it once, POST /sessions → settled, alternating, p50; target ≤ 1.3×.
 *
 *   node_modules/.bin/node bench/delegation.bench.ts
 */
import { startBareWorker } from './baseline/worker.ts';
import { withBenchRuntimeApp } from './runtime-app.ts';
import { percentile, printRecords, type BenchRecord } from './support.ts';

type Options = { runs?: number; warmup?: number; fanOutRuns?: number; fanOutWarmup?: number };

/** Parallel delegation: the children of the fan-out, and how long each child's model takes to answer. */
const FAN_OUT = 4;
const CHILD_MODEL_MS = 500;

/**
 * A coordinator message the instant model answers with `count` `delegate_agent` calls in one reply
 * (one `call` line each). Each delegated message asks the child's model to hold its answer
 * (`sleep <ms>`); the `s` is written `\u0073` in the JSON, so the coordinator's own message does
 * not read as a `sleep` (its model calls stay instant) while the child receives `sleep <ms>`.
 */
const fanOutMessage = (count: number) =>
  Array.from({ length: count }, (_, i) => `call delegate_agent {"delegateKey":"child","message":"\\u0073leep ${CHILD_MODEL_MS} Part ${i + 1}."}`).join('\n');

export async function run(options: Options = {}): Promise<BenchRecord[]> {
  const settings = { runs: 40, warmup: 8, fanOutRuns: 10, fanOutWarmup: 2, ...options };
  return withBenchRuntimeApp('delegation', {}, async ({ api, projectPath: p, timedSession, temporal }) => {
    const plain = await api.call('POST', `${p}/agents`, {
      name: 'Plain',
      initialConfig: { systemPrompt: 'Answer.', modelPreset: 'm-a', limits: { maxTurns: 4 } },
    });
    const coordinator = await api.call('POST', `${p}/agents`, {
      name: 'Coordinator',
      initialConfig: {
        systemPrompt: 'Delegate.',
        modelPreset: 'm-a',
        limits: { maxTurns: 4 },
        delegates: [{ key: 'child', description: 'Answers.', agentVersionId: plain.latestVersionId, maxParallel: 1 }],
      },
    });
    const delegate = () => timedSession(coordinator.id, 'call delegate_agent {"delegateKey":"child","message":"Answer."}');
    const twoPlain = async () => (await timedSession(plain.id, 'Hello.')) + (await timedSession(plain.id, 'Hello again.'));
    for (let i = 0; i < settings.warmup; i++) {
      await delegate();
      await twoPlain();
    }
    const delegated: number[] = [];
    const baseline: number[] = [];
    for (let i = 0; i < settings.runs; i++) {
      delegated.push(await delegate());
      baseline.push(await twoPlain());
    }
    const p50 = (values: number[]) =>
      percentile(
        [...values].sort((a, b) => a - b),
        50,
      );
    const bare = await startBareWorker(temporal.address, temporal.namespace);
    const bareDelegated: number[] = [];
    const bareBaseline: number[] = [];
    try {
      const timed = async (work: () => Promise<unknown>) => {
        const started = performance.now();
        await work();
        return performance.now() - started;
      };
      const bareTwo = async () => {
        await bare.execute('bareWorkflow');
        await bare.execute('bareWorkflow');
      };
      for (let i = 0; i < settings.warmup; i++) {
        await bare.execute('bareDelegation');
        await bareTwo();
      }
      for (let i = 0; i < settings.runs; i++) {
        bareDelegated.push(await timed(() => bare.execute('bareDelegation')));
        bareBaseline.push(await timed(bareTwo));
      }
    } finally {
      await bare.shutdown();
    }
    const floor = p50(bareDelegated) / p50(bareBaseline);
    console.log(
      `  Temporal's own ratio for the shape: a bare delegation ${p50(bareDelegated).toFixed(1)} ms vs two bare workflows ${p50(bareBaseline).toFixed(1)} ms → ${floor.toFixed(2)}×`,
    );
    const fanOutCoordinator = await api.call('POST', `${p}/agents`, {
      name: 'Fan-out coordinator',
      initialConfig: {
        systemPrompt: 'Delegate.',
        modelPreset: 'm-a',
        limits: { maxTurns: 4 },
        delegates: [{ key: 'child', description: 'Answers.', agentVersionId: plain.latestVersionId, maxParallel: FAN_OUT }],
      },
    });
    const fanOut = () => timedSession(fanOutCoordinator.id, fanOutMessage(FAN_OUT));
    const oneChild = () => timedSession(fanOutCoordinator.id, fanOutMessage(1));
    for (let i = 0; i < settings.fanOutWarmup; i++) {
      await fanOut();
      await oneChild();
    }
    const fannedOut: number[] = [];
    const alone: number[] = [];
    for (let i = 0; i < settings.fanOutRuns; i++) {
      fannedOut.push(await fanOut());
      alone.push(await oneChild());
    }
    console.log(
      `  Parallel delegation: ${FAN_OUT} children ${p50(fannedOut).toFixed(1)} ms vs one child ${p50(alone).toFixed(1)} ms (each child's model ${CHILD_MODEL_MS} ms) → ${(p50(fannedOut) / p50(alone)).toFixed(2)}×`,
    );
    return [
      {
        name: 'delegation round trip p50: coordinator turn → child run → result → reply (baseline: two sequential one-turn plain runs)',
        unit: 'ms',
        value: p50(delegated),
        baseline: p50(baseline),
        ratio: p50(delegated) / p50(baseline),
        target: 1.5,
        better: 'lower',
      },
      {
        name: `parallel delegation p50: a coordinator turn delegating to ${FAN_OUT} children at once, each child's model ${CHILD_MODEL_MS} ms (baseline: the same coordinator delegating to one)`,
        unit: 'ms',
        value: p50(fannedOut),
        baseline: p50(alone),
        ratio: p50(fannedOut) / p50(alone),
        target: 1.3,
        better: 'lower',
      },
    ];
  });
}

if (import.meta.main) {
  printRecords(await run());
}
