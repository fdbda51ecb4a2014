import { percentile } from '../support.ts';
import { cpuSeconds, cpuSecondsByKind, peakRssMiB, type ProcessSet } from './processes.ts';

/**
 * One runtime under the peer benchmark, driven the way its own users drive it (its HTTP API,
 * or its library call where it has no server), against the same instant model with the same two
 * agents: one turn (system prompt + one user message, no tools) and two turns (the model calls
 * `lookup` once, then answers).
 */
export type Peer = {
  name: string;
  /** What ran and how it was driven, for the results file. */
  setup: string;
  start(): Promise<void>;
  /** Create to settled of one run of the one-turn agent; throws unless it settled successfully. */
  oneTurn(i: number): Promise<void>;
  twoTurn(i: number): Promise<void>;
  /** Its processes, for peak RSS and CPU time (PostgreSQL included where it keeps state there). */
  processes(): ProcessSet;
  /**
   * Starts a run whose model call is held, `kill -9`s the process executing it, starts the peer
   * again and watches whether the run settles with its answer by itself (no resubmission).
   */
  crashCheck(): Promise<{ durable: boolean; detail: string }>;
  stop(): Promise<void>;
};

type CpuByKind = Record<'postgres' | 'temporal' | 'node', number>;

export type PeerFigures = {
  name: string;
  setup: string;
  oneTurn: { p50: number; p95: number };
  twoTurn: { p50: number; p95: number };
  throughput: Record<
    number,
    { perSecond: number; settled: number; failed: number; stuck: number; firstError: string | null; cpuMsPerRun: number; cpuMsPerRunByKind: CpuByKind }
  >;
  peakRssMiB: number;
  durable: boolean;
  durableDetail: string;
};

/** `runs` per load level: at least this many, and five per concurrent client. */
export type MeasureOptions = {
  warmup: number;
  sequential: number;
  concurrency: number[];
  runs: number;
  runDeadlineMs: number;
  twoTurn?: boolean;
  crashCheck?: boolean;
};

export async function measurePeer(peer: Peer, options: MeasureOptions, log: (line: string) => void): Promise<PeerFigures> {
  await peer.start();
  try {
    let seq = 0;
    for (let i = 0; i < options.warmup; i++) {
      await peer.oneTurn(seq++);
      if (options.twoTurn !== false) await peer.twoTurn(seq++);
    }
    const oneTurn = await timedSequence(options.sequential, () => peer.oneTurn(seq++));
    log(`${peer.name}: one turn p50 ${oneTurn.p50.toFixed(1)} ms, p95 ${oneTurn.p95.toFixed(1)} ms`);
    const twoTurn = options.twoTurn === false ? { p50: NaN, p95: NaN } : await timedSequence(options.sequential, () => peer.twoTurn(seq++));
    log(`${peer.name}: two turns p50 ${twoTurn.p50.toFixed(1)} ms, p95 ${twoTurn.p95.toFixed(1)} ms`);
    const throughput: PeerFigures['throughput'] = {};
    for (const concurrency of options.concurrency) {
      const cpuBefore = cpuSeconds(peer.processes());
      const byKindBefore = cpuSecondsByKind(peer.processes());
      const load = await accountedLoad(concurrency, Math.max(options.runs, concurrency * 5), options.runDeadlineMs, () => peer.oneTurn(seq++));
      const byKindAfter = cpuSecondsByKind(peer.processes());
      const perRun = (seconds: number) => (seconds * 1000) / Math.max(1, load.settled);
      const cpuMsPerRunByKind = {
        postgres: perRun(byKindAfter.postgres - byKindBefore.postgres),
        temporal: perRun(byKindAfter.temporal - byKindBefore.temporal),
        node: perRun(byKindAfter.node - byKindBefore.node),
      };
      const t = (throughput[concurrency] = { ...load, cpuMsPerRun: perRun(cpuSeconds(peer.processes()) - cpuBefore), cpuMsPerRunByKind });
      const split = `Node ${cpuMsPerRunByKind.node.toFixed(1)}, Temporal server ${cpuMsPerRunByKind.temporal.toFixed(1)}, PostgreSQL ${cpuMsPerRunByKind.postgres.toFixed(1)}`;
      log(
        `${peer.name}: concurrency ${concurrency}: ${t.perSecond.toFixed(1)} runs/s (${t.settled} settled, ${t.failed} failed, ${t.stuck} stuck), ${t.cpuMsPerRun.toFixed(1)} ms CPU per run (${split})${t.firstError ? `; first error: ${t.firstError}` : ''}`,
      );
    }
    const peakRss = peakRssMiB(peer.processes());
    const crash =
      options.crashCheck === false
        ? { durable: false, detail: 'not checked' }
        : await peer.crashCheck().catch((error: Error) => ({ durable: false, detail: `check failed: ${error.message.slice(0, 300)}` }));
    log(`${peer.name}: peak RSS ${peakRss.toFixed(0)} MiB; survives kill -9: ${crash.durable ? 'yes' : 'no'} (${crash.detail})`);
    return { name: peer.name, setup: peer.setup, oneTurn, twoTurn, throughput, peakRssMiB: peakRss, durable: crash.durable, durableDetail: crash.detail };
  } finally {
    await peer.stop();
  }
}

async function timedSequence(count: number, run: () => Promise<void>): Promise<{ p50: number; p95: number }> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const began = performance.now();
    await run();
    times.push(performance.now() - began);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p95: percentile(times, 95) };
}

/**
 * `total` runs with `concurrency` in flight, every one accounted for (omes style): settled,
 * failed (the peer said so, or its call threw), or stuck (no answer within `deadlineMs`). The
 * rate counts settled runs only.
 */
async function accountedLoad(concurrency: number, total: number, deadlineMs: number, run: () => Promise<void>) {
  let next = 0;
  let settled = 0;
  let failed = 0;
  let stuck = 0;
  let firstError: string | null = null;
  const began = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        next += 1;
        let timer: NodeJS.Timeout | undefined;
        const outcome = await Promise.race([
          run().then(
            () => 'settled' as const,
            (error: Error) => {
              firstError ??= error.message.slice(0, 200);
              return 'failed' as const;
            },
          ),
          new Promise<'stuck'>((resolve) => (timer = setTimeout(() => resolve('stuck'), deadlineMs))),
        ]);
        clearTimeout(timer);
        if (outcome === 'settled') settled += 1;
        else if (outcome === 'failed') failed += 1;
        else stuck += 1;
      }
    }),
  );
  const seconds = (performance.now() - began) / 1000;
  return { perSecond: settled / seconds, settled, failed, stuck, firstError };
}
