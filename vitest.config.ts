import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type ViteUserConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const root = path.dirname(fileURLToPath(import.meta.url));

/**
 * The files that take longest (test/README.md "Where the time goes"), started first so that none
 * of them is left running alone at the end. Vitest orders by the durations of the last run when
 * it has them; a clean clone has none.
 */
const SLOWEST_FIRST = [
  'test/lint.test.ts',
  'test/integration/route-fuzz.test.ts',
  'test/integration/scale-out.test.ts',
  'test/integration/run-continue-as-new.test.ts',
  'test/integration/run-durability.test.ts',
  'test/e2e/console.test.ts',
  'test/integration/api-crash.test.ts',
  'test/integration/database-outage.test.ts',
  'test/integration/cli.test.ts',
  'test/e2e/console-schedules-usage.test.ts',
  'test/integration/schedules.test.ts',
  'test/integration/schedules-durability.test.ts',
];

class SlowestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => {
      const relative = path.relative(root, file.moduleId);
      const index = SLOWEST_FIRST.indexOf(relative);
      // The files run alone keep ALONE's order: the sandbox limits first, as before the tenant
      // backlog (500 runs left waiting when its file ends) joined them.
      return index < 0 ? SLOWEST_FIRST.length + 1 + ALONE.indexOf(relative) : index;
    };
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

/**
 * Files whose assertions bound what happens within a scan interval of a busy host, or compare a
 * latency measured at two moments (tenant fairness: a run's p50 before and beside a backlog):
 * they run last, one at a time, so that the other files' load does not decide their outcome.
 */
const ALONE = ['activities/sandbox/local/driver-limits.test.ts', 'test/integration/tenant-fairness.test.ts'];

const EXCLUDE = ['**/node_modules/**', '.data/**', '.tools/**', '.peers/**'];

/** What every run of the suite shares; test/histories/ and test/soak/ reuse it around their own file. */
export const sharedTestOptions = {
  globalSetup: ['test/support/global-setup.ts'],
  // Three files at a time on the one Postgres server and Temporal dev server: each file clones
  // its own database and uses its own task queues. Much of a durability test is waiting (for a
  // heartbeat timeout, a new worker), so three keep 2 cores busy.
  fileParallelism: true,
  maxWorkers: 3,
  // A worker process runs file after file without re-importing the app (~2 s of module loading
  // per file). Files must not leave process-wide state behind (the Temporal Runtime is one per
  // process: workflow-replay.test.ts copes).
  isolate: false,
  sequence: { sequencer: SlowestFirst },
  testTimeout: 60_000,
  hookTimeout: 120_000,
  // `expect.poll` waits for a condition; vitest's default ceiling (1 s) is a speed bound a slow
  // host outruns (a console screen that took longer to draw failed a run), so it waits 30 s.
  expect: { poll: { timeout: 30_000 } },
  pool: 'forks',
} satisfies NonNullable<ViteUserConfig['test']>;

export default defineConfig({
  test: {
    ...sharedTestOptions,
    projects: [
      { extends: true, test: { name: 'suite', include: ['**/*.test.ts'], exclude: [...EXCLUDE, ...ALONE] } },
      { extends: true, test: { name: 'alone', include: ALONE, exclude: EXCLUDE, sequence: { groupOrder: 1 }, fileParallelism: false, maxWorkers: 1 } },
    ],
  },
});
