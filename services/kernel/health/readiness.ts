/** One dependency's check: resolves when it answers, throws (or never settles) when it does not. */
export type Probe = () => Promise<void>;

export type ReadinessReport = {
  ready: boolean;
  /** `draining`: the process was told to stop (SIGTERM) and takes no new work. */
  status: 'ready' | 'not_ready' | 'draining';
  /** Each dependency by name (`database`, `migrations`, `temporal`): never an address or a secret. */
  checks: Record<string, 'ok' | 'failing'>;
};

export type Readiness = {
  check(): Promise<ReadinessReport>;
  /** From now on the process reports `draining` (not ready), so a load balancer stops sending it work. */
  drain(): void;
};

/** A probe that has not answered in this long counts as failing: a cut connection can hang. */
const PROBE_TIMEOUT_MS = 2_000;

/**
 * `GET /readyz` of a process (docs/decisions/health-and-readiness-probes.md): every probe at once,
 * each bounded by a timeout; ready when all answered and the process is not draining.
 */
export function createReadiness(probes: Record<string, Probe>, options: { timeoutMs?: number } = {}): Readiness {
  const timeoutMs = options.timeoutMs ?? PROBE_TIMEOUT_MS;
  let draining = false;
  const passes = async (probe: Probe): Promise<boolean> => {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
    try {
      return await Promise.race([
        probe().then(
          () => true,
          () => false,
        ),
        timedOut,
      ]);
    } finally {
      clearTimeout(timer);
    }
  };
  return {
    async check() {
      const names = Object.keys(probes);
      const results = await Promise.all(names.map((name) => passes(probes[name]!)));
      const checks = Object.fromEntries(names.map((name, index) => [name, results[index] ? 'ok' : 'failing'] as const));
      const healthy = results.every(Boolean);
      const status = draining ? 'draining' : healthy ? 'ready' : 'not_ready';
      return { ready: status === 'ready', status, checks };
    },
    drain() {
      draining = true;
    },
  };
}
