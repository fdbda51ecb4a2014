/**
 * Delegation round trip, on the machine's PostgreSQL with the real runtime and an instant model:
 * a coordinator run whose first turn calls `delegate_agent`, the child run (its own session and
 * one instant model turn, a Temporal child workflow) answering, and the coordinator's reply,
 * POST /sessions → settled. Baseline: two one-turn runs of plain sessions one after the other,
 * the same number of runs and model turns without the delegation machinery. p50; target ≤ 1.5×.
 *
 *   node_modules/.bin/node bench/delegation.bench.ts
 */
import { withBenchRuntimeApp } from './runtime-app.ts';
import { percentile, printRecords, type BenchRecord } from './support.ts';

type Options = { runs?: number; warmup?: number };

export async function run(options: Options = {}): Promise<BenchRecord[]> {
  const settings = { runs: 40, warmup: 8, ...options };
  return withBenchRuntimeApp('delegation', {}, async ({ api, projectPath: p, timedSession }) => {
    const plain = await api.call('POST', `${p}/agents`, { name: 'Plain', initialConfig: { systemPrompt: 'Answer.', modelPreset: 'm-a', limits: { maxTurns: 4 } } });
    const coordinator = await api.call('POST', `${p}/agents`, {
      name: 'Coordinator',
      initialConfig: { systemPrompt: 'Delegate.', modelPreset: 'm-a', limits: { maxTurns: 4 }, delegates: [{ key: 'child', description: 'Answers.', agentVersionId: plain.latestVersionId, maxParallel: 1 }] },
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
    const p50 = (values: number[]) => percentile([...values].sort((a, b) => a - b), 50);
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
    ];
  });
}

if (import.meta.main) {
  printRecords(await run());
}
