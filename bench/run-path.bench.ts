/**
 * The run path as a user meets it, against Restate's durable handler measured in the same run
 * (issue 15): `npm start` on PostgreSQL driven over HTTP (`POST /sessions`, settlement from the
 * SSE feed) and a Restate service handler journaling the model call with `ctx.run`, both on the
 * instant model (bench/peers/, the peers installed into `.peers/` on first use). Targets: one-turn
 * create-to-settled p50 ≤ 3× Restate's; runs settled per second at concurrency 64 ≥ 0.4× Restate's
 * (100 runs/s against its ~250 here). `npm run bench:peers` has the full table.
 */
import { startInstantModelServer } from './instant-model-server.ts';
import { ensurePeersInstalled } from './peers/install.ts';
import { measurePeer, type MeasureOptions } from './peers/peer.ts';
import { restatePeer } from './peers/restate.ts';
import { servicePeer } from './peers/service.ts';
import { withBenchDatabase, type BenchRecord } from './support.ts';

export async function run(): Promise<BenchRecord[]> {
  await ensurePeersInstalled((line) => console.log(line));
  const options: MeasureOptions = { warmup: 5, sequential: 30, concurrency: [64], runs: 320, runDeadlineMs: 60_000, twoTurn: false, crashCheck: false };
  const model = await startInstantModelServer();
  const quiet = () => {};
  try {
    const ours = await withBenchDatabase((url) => measurePeer(servicePeer({ name: 'service', model, databaseUrl: url }), options, quiet));
    const restate = await measurePeer(restatePeer({ model }), options, quiet);
    const p50 = ours.oneTurn.p50;
    const rate = ours.throughput[64]!.perSecond;
    const lost = ours.throughput[64]!.failed + ours.throughput[64]!.stuck;
    if (lost > 0) console.log(`  ${lost} of ${ours.throughput[64]!.settled + lost} runs did not settle (${ours.throughput[64]!.firstError ?? 'stuck'})`);
    return [
      {
        name: 'one-turn run create→settled p50 over HTTP (PostgreSQL) vs Restate durable handler',
        unit: 'ms',
        value: p50,
        baseline: restate.oneTurn.p50,
        ratio: p50 / restate.oneTurn.p50,
        target: 3,
        better: 'lower',
      },
      {
        name: 'one-turn runs settled/s at concurrency 64 vs Restate',
        unit: 'runs/s',
        value: rate,
        baseline: restate.throughput[64]!.perSecond,
        ratio: rate / restate.throughput[64]!.perSecond,
        target: 0.4,
        better: 'higher',
      },
    ];
  } finally {
    await model.close();
  }
}
