import type { PeerFigures } from './peer.ts';
import type { TemporalFloor } from './temporal-floor.ts';

const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(1) : '—');

/** The peer table (Markdown) with this service's ratios to Restate's durable handler. */
export function renderPeerTable(
  results: Array<PeerFigures | { name: string; error: string }>,
  context: { machine: string; options: { warmup: number; sequential: number; concurrency: number[]; runs: number }; floor: TemporalFloor | null },
): string {
  const measured = results.filter((r): r is PeerFigures => !('error' in r));
  const levels = context.options.concurrency;
  const top = levels.at(-1)!;
  const lines = [
    '# Peer benchmark',
    '',
    `Measured by \`npm run bench:peers\` on ${context.machine}. Same instant OpenAI-compatible model (bench/instant-model-server.ts) for all; ` +
      `one turn = system prompt + one user message, no tools; two turns = the model calls \`lookup\` once, then answers. ` +
      `Latency: ${context.options.sequential} sequential runs each after ${context.options.warmup} warm-up runs, create to settled. ` +
      `Throughput: at least ${context.options.runs} one-turn runs (five per client) at each concurrency, every run accounted for. ` +
      "CPU per run: user + system time of the runtime's processes (PostgreSQL's included where the runtime keeps its state there) during the load, per settled run. Peak RSS: the sum of VmHWM over the runtime's processes (PostgreSQL not counted). Durable: a run whose model call is in flight survives `kill -9` of the process executing it and settles by itself after a restart (checked in this run).",
    '',
    `| Runtime | Durable (kill -9) | One turn p50 / p95 ms | Two turns p50 / p95 ms | ${levels.map((c) => `Runs/s at ${c}`).join(' | ')} | CPU ms per run at ${top} | Peak RSS MiB |`,
    `|---|---|---|---|${levels.map(() => '---').join('|')}|---|---|`,
  ];
  for (const r of results) {
    if ('error' in r) {
      lines.push(`| ${r.name} | not measured | — | — | ${levels.map(() => '—').join(' | ')} | — | — |`);
      continue;
    }
    const rates = levels.map((c) => {
      const t = r.throughput[c]!;
      const lost = t.failed + t.stuck;
      return `${t.perSecond.toFixed(1)}${lost > 0 ? ` (${t.failed} failed, ${t.stuck} stuck of ${t.settled + lost})` : ''}`;
    });
    lines.push(
      `| ${r.name} | ${r.durable ? 'yes' : 'no'} | ${ms(r.oneTurn.p50)} / ${ms(r.oneTurn.p95)} | ${ms(r.twoTurn.p50)} / ${ms(r.twoTurn.p95)} | ${rates.join(' | ')} | ${r.throughput[top]!.cpuMsPerRun.toFixed(1)} | ${r.peakRssMiB.toFixed(0)} |`,
    );
  }
  const restate = measured.find((r) => r.name.startsWith('Restate'));
  const ours = measured.filter((r) => r.name.startsWith('This service'));
  if (restate && ours.length > 0) {
    lines.push('', "## This service against Restate's durable handler (same run)", '');
    lines.push(
      `| | One turn p50 ratio (target ≤ 3×) | ${levels.map((c) => `Runs/s ratio at ${c}`).join(' | ')} |`,
      `|---|---|${levels.map(() => '---').join('|')}|`,
    );
    for (const r of ours) {
      const rates = levels.map((c) => `${(r.throughput[c]!.perSecond / restate.throughput[c]!.perSecond).toFixed(2)}×`);
      lines.push(`| ${r.name} | ${(r.oneTurn.p50 / restate.oneTurn.p50).toFixed(1)}× | ${rates.join(' | ')} |`);
    }
  }
  const floor = context.floor;
  if (floor) {
    lines.push(
      '',
      '## The Temporal floor (same run)',
      '',
      `What Temporal itself costs a durable one-turn agent here: the dev server as \`npm start\` runs it (history in a SQLite file), one workflow whose one activity makes the model call, started eagerly on the worker's connection; no database, events or API. ` +
        `One turn p50 **${floor.oneTurnP50.toFixed(1)} ms**; **${floor.perSecond.toFixed(1)} runs/s** at concurrency ${floor.concurrency}; ` +
        `CPU per run: Temporal server **${floor.serverCpuMsPerRun.toFixed(1)} ms**, with the worker (and the instant model, same process) ${floor.totalCpuMsPerRun.toFixed(1)} ms. ` +
        `On ${context.machine.split(' ')[0]} cores that CPU alone caps a Temporal-based runtime near ${((Number(context.machine.split(' ')[0]) * 1000) / floor.totalCpuMsPerRun).toFixed(0)} runs/s.`,
    );
    if (ours.length > 0) {
      lines.push(
        '',
        `| | One turn p50 over the floor | Runs/s at ${top} against the floor | CPU per run against the floor | CPU ms per run: Node / Temporal server / PostgreSQL |`,
        '|---|---|---|---|---|',
      );
      const floorWorker = floor.totalCpuMsPerRun - floor.serverCpuMsPerRun;
      lines.push(`| The floor itself | 1.0× | 1.00× | 1.0× | ${floorWorker.toFixed(1)} / ${floor.serverCpuMsPerRun.toFixed(1)} / 0 |`);
      for (const r of ours) {
        const t = r.throughput[top]!;
        const split = `${t.cpuMsPerRunByKind.node.toFixed(1)} / ${t.cpuMsPerRunByKind.temporal.toFixed(1)} / ${t.cpuMsPerRunByKind.postgres.toFixed(1)}`;
        lines.push(
          `| ${r.name} | ${(r.oneTurn.p50 / floor.oneTurnP50).toFixed(1)}× | ${(t.perSecond / floor.perSecond).toFixed(2)}× | ${(t.cpuMsPerRun / floor.totalCpuMsPerRun).toFixed(1)}× | ${split} |`,
        );
      }
      lines.push(
        '',
        "The split shows what the CPU target (≤ 1.5× the floor) leaves: the Temporal server and PostgreSQL alone, set against 1.5× the floor, leave that much for all of our Node process, which also carries the Temporal SDK the floor's worker spends its own share on (embedded: PGlite runs inside the Node process).",
      );
    }
  }
  lines.push('', '## How each ran', '');
  for (const r of results) {
    if ('error' in r) lines.push(`- **${r.name}**: not measured: ${r.error.replaceAll('\n', ' ')}`);
    else {
      const errors = levels.map((c) => r.throughput[c]!.firstError).filter(Boolean);
      lines.push(`- **${r.name}**: ${r.setup}. Crash check: ${r.durableDetail}.${errors.length ? ` First error under load: ${errors[0]}` : ''}`);
    }
  }
  return lines.join('\n') + '\n';
}
