/**
 * Long conversations (docs/decisions/context-compaction.md), on the machine's PostgreSQL with the
 * real runtime and the instant model reporting the input it read: 300 sequential turns in one
 * session, each `POST /sessions/{id}/runs` → settled, timed.
 *
 * 1. Per-turn overhead as the session grows, with compaction (`compactAtTokens: 6000`): the p50 of
 *    the last 20 turns against the first 20. Target ≤ 1.25×. The same figure without compaction
 *    (`compactAtTokens: null`: the whole transcript read and sent every turn) is printed beside it.
 * 2. Input tokens per turn, as the model reported them, stay under the threshold: the maximum over
 *    the 300 turns against the threshold. Target ≤ 1.
 *
 *   node_modules/.bin/node bench/long-conversation.bench.ts
 *   BENCH_LONG_TURNS=100 node_modules/.bin/node bench/long-conversation.bench.ts
 */
import { runWorkflowId } from '../domain/runs/workflow.ts';
import { withBenchRuntimeApp, type BenchRuntimeApp } from './runtime-app.ts';
import { percentile, printRecords, type BenchRecord } from './support.ts';

const THRESHOLD = 6_000;
/** About 150 tokens of user text a turn. */
const turnText = (turn: number) => `Turn ${turn}: ${'please keep note of this detail. '.repeat(18)}`;

const p50 = (values: number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );

export async function run(options: { turns?: number } = {}): Promise<BenchRecord[]> {
  const turns = options.turns ?? Number(process.env.BENCH_LONG_TURNS ?? 300);
  return withBenchRuntimeApp('long-conversation', { model: { countInputTokens: true } }, async (app) => {
    // Warm up first (JIT, pools, Temporal's caches), so neither side's first turns pay for it.
    await conversation(app, { compactAtTokens: null }, 30);
    const uncompacted = await conversation(app, { compactAtTokens: null }, turns);
    const before = app.model.inputTokens().length;
    const compacted = await conversation(app, { compactAtTokens: THRESHOLD }, turns);
    // The turns' own requests (summary requests read less than the turn that triggered them).
    const maxInput = Math.max(...app.model.inputTokens().slice(before));
    const growth = (times: number[]) => p50(times.slice(-20)) / p50(times.slice(0, 20));
    console.log(
      `  ${turns} turns: p50 first 20 / last 20 = ${p50(compacted.times.slice(0, 20)).toFixed(1)} / ${p50(compacted.times.slice(-20)).toFixed(1)} ms with compaction` +
        ` (${compacted.compactions} compactions), ${p50(uncompacted.times.slice(0, 20)).toFixed(1)} / ${p50(uncompacted.times.slice(-20)).toFixed(1)} ms without` +
        ` (${growth(uncompacted.times).toFixed(2)}×; the last request read ${app.model.inputTokens()[before - 1]} tokens)`,
    );
    return [
      {
        name: `turn p50, last 20 vs first 20 of ${turns}, with compaction`,
        unit: 'ms',
        value: p50(compacted.times.slice(-20)),
        baseline: p50(compacted.times.slice(0, 20)),
        ratio: growth(compacted.times),
        target: 1.25,
        better: 'lower',
      },
      {
        name: `most input tokens of a turn over ${turns}, against the threshold`,
        unit: 'tokens',
        value: maxInput,
        baseline: THRESHOLD,
        ratio: maxInput / THRESHOLD,
        target: 1,
        better: 'lower',
        against: `compactAtTokens ${THRESHOLD}`,
      },
    ];
  });
}

async function conversation(app: BenchRuntimeApp, context: { compactAtTokens: number | null }, turns: number) {
  const { api, projectPath: p } = app;
  const agent = await api.call('POST', `${p}/agents`, {
    name: `Long ${context.compactAtTokens ?? 'uncompacted'}`,
    initialConfig: { systemPrompt: 'Answer.', modelPreset: 'm-a', limits: { maxTurns: 4 }, context },
  });
  const session = await api.call('POST', `${p}/sessions`, { agentId: agent.id });
  const times: number[] = [];
  for (let turn = 1; turn <= turns; turn++) {
    const began = performance.now();
    const created = await api.call('POST', `${p}/sessions/${session.id}/runs`, { message: turnText(turn) });
    const state = await app.runtime.client.client.workflow.getHandle(runWorkflowId(created.id)).result();
    if (state !== 'completed') throw new Error(`turn ${turn} settled ${String(state)}`);
    times.push(performance.now() - began);
  }
  const detail = await api.call('GET', `${p}/sessions/${session.id}`, undefined);
  return { times, compactions: Number(detail.context.compactions) };
}

if (import.meta.url === `file://${process.argv[1]}`) printRecords(await run());
