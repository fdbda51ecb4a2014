/**
 * The cost a memory store adds to a sandboxed command: one `bash -c true` in a bubblewrap sandbox
 * with a store of 1,000 memories of 1 kB mounted at /mnt/memory (the store's paths and hashes read
 * from PostgreSQL, the mount brought in line, bound, read back after the command and compared for
 * write-back, with nothing changed), against the same command without a store, alternating in
 * one run; the first mount (every file written) is timed apart. Target ≤ 1.3×.
 *
 *   node_modules/.bin/node bench/memory-mount.bench.ts
 */
import { createHash, randomUUID } from 'node:crypto';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { memories, memoryStores } from '../db/schema/index.ts';
import { memoryContents, readMountedStores, writeBackMount, type MountIndexCache } from '../services/configuration/memory-stores/index.ts';
import { createLocalSandboxDriver } from '../activities/sandbox/local/driver.ts';
import { BUILT_IN_SNAPSHOT } from '../domain/sandbox/snapshot-registry.ts';
import type { AttachedMemoryStore } from '../domain/memory/index.ts';
import { benchContext, median, openBenchDatabase, printRecords, withBenchDatabase, type BenchRecord } from './support.ts';

export async function run(options: { memories?: number; rounds?: number } = {}): Promise<BenchRecord[]> {
  const count = options.memories ?? 1_000;
  const rounds = options.rounds ?? 30;
  return withBenchDatabase(async (url) => {
    const { database, organizationId, createProject } = await openBenchDatabase(url, 2);
    const dataDir = await mkdtemp(path.join(tmpdir(), 'memory-mount-bench-'));
    await chmod(dataDir, 0o711);
    const driver = createLocalSandboxDriver({ dataDir });
    try {
      const projectId = await createProject();
      const [store] = await database.db.insert(memoryStores).values({ organizationId, projectId, name: 'Bench notes' }).returning();
      const content = 'x'.repeat(1023) + '\n';
      const rows = Array.from({ length: count }, (_, i) => ({
        organizationId,
        projectId,
        storeId: store!.id,
        path: `/notes/${String(Math.floor(i / 100)).padStart(2, '0')}/note-${String(i).padStart(4, '0')}.md`,
        content,
        contentSha256: createHash('sha256').update(content, 'utf8').digest('hex'),
        contentSizeBytes: 1024,
        versionId: randomUUID(),
      }));
      for (let at = 0; at < rows.length; at += 500) await database.db.insert(memories).values(rows.slice(at, at + 500));
      const attached: AttachedMemoryStore = {
        storeId: store!.id,
        name: 'Bench notes',
        description: '',
        mount: 'bench-notes',
        mountPath: '/mnt/memory/bench-notes/',
        access: 'read_write',
        instructions: null,
      };
      const ctx = benchContext(database);
      const scope = { organizationId, projectId };
      const sandboxId = randomUUID();
      const exec = (mounted: boolean, command = 'true') =>
        driver.exec({
          sandboxId,
          snapshot: BUILT_IN_SNAPSHOT,
          argv: ['bash', '-c', command],
          network: { mode: 'none' },
          timeoutMs: 30_000,
          ...(mounted ? { memoryMounts: [{ name: attached.mount, readOnly: false }] } : {}),
        });
      let edits = 0;
      // The command that changes a file: in the workspace without a store, in the store with one.
      const edit = (inStore: boolean) => `printf 'edit ${++edits}' > ${inStore ? `${attached.mountPath}notes/00/note-0000.md` : '/workspace/note.md'}`;
      const bare = async (changing = false) => {
        const result = await exec(false, changing ? edit(false) : 'true');
        if (result.exitCode !== 0) throw new Error(`the command failed: ${result.stderr}`);
      };
      // As the tool runner does, per sandbox: the stores' paths and hashes as last read.
      const mountIndex: MountIndexCache = new Map();
      const withStore = async (changing = false) => {
        const [mounted] = await readMountedStores(ctx, scope, [attached], mountIndex);
        const wanted = [...mounted!.mounted].map(([path, { sha }]) => ({ path, sha256: sha }));
        await driver.syncMemoryMount(sandboxId, undefined, attached.mount, wanted, async (paths) => {
          const contents = await memoryContents(ctx, scope, attached.storeId, paths);
          return new Map([...contents].map(([path, text]) => [path, Buffer.from(text, 'utf8')]));
        });
        const result = await exec(true, changing ? edit(true) : 'true');
        if (result.exitCode !== 0) throw new Error(`the command failed: ${result.stderr}`);
        const after = await driver.readMemoryMount(sandboxId, undefined, attached.mount);
        const report = await writeBackMount(ctx, {
          scope,
          author: { type: 'session', sessionId: randomUUID(), runId: randomUUID() },
          toolCallId: randomUUID(),
          mounted: mounted!,
          after,
          cache: mountIndex,
        });
        if (report.written.length !== (changing ? 1 : 0) || report.problems.length > 0 || after.length !== count) throw new Error('the mount changed');
      };
      await bare();
      await withStore();
      const plain: number[] = [];
      const mounted: number[] = [];
      const plainEdit: number[] = [];
      const mountedEdit: number[] = [];
      for (let round = 0; round < rounds; round++) {
        for (const [list, step] of [
          [plain, () => bare()],
          [mounted, () => withStore()],
          [plainEdit, () => bare(true)],
          [mountedEdit, () => withStore(true)],
        ] as const) {
          const started = performance.now();
          await step();
          list.push(performance.now() - started);
        }
      }
      const record = (name: string, values: number[], baselines: number[], target: number): BenchRecord => ({
        name,
        unit: 'ms',
        value: median(values),
        baseline: median(baselines),
        ratio: median(values) / median(baselines),
        target,
        better: 'lower',
      });
      return [
        record(
          `sandboxed command with a store of ${count} memories of 1 kB mounted and written back (baseline: the same command without a store), median`,
          mounted,
          plain,
          1.3,
        ),
        record(
          `the same with the command rewriting one memory, written back as a version (baseline: the command rewriting a workspace file), median`,
          mountedEdit,
          plainEdit,
          1.3,
        ),
      ];
    } finally {
      await driver.close();
      await database.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
}

if (import.meta.main) printRecords(await run());
