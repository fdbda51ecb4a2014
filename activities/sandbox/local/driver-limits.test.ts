import { BUILT_IN_SNAPSHOT } from '../../../domain/sandbox/snapshot-registry.ts';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ExecRequest } from './driver.ts';
import { createTestDriver, type TestDriver } from './test-support.ts';

/** CPU, process, file-size, output and wall-clock limits on real sandboxed commands. */
let t: TestDriver;
beforeAll(async () => {
  t = await createTestDriver();
});
afterAll(() => t.cleanup());

const run = (argv: string[], extra: Partial<ExecRequest> = {}) =>
  t.driver.exec({ sandboxId: randomUUID(), snapshot: BUILT_IN_SNAPSHOT, argv, network: { mode: 'none' }, timeoutMs: 10_000, ...extra });

describe('local sandbox driver: limits', () => {
  it('kills a CPU-burning loop at the CPU-time limit, long before the wall clock', async () => {
    const result = await run(['bash', '-c', 'while :; do :; done'], { limits: { cpuSeconds: 1 } });
    expect(result.timedOut).toBe(false);
    // Not the wall clock's kill (timedOut): how long 1 s of CPU takes is the host's load.
    expect(['SIGXCPU', 'SIGKILL']).toContain(result.signal);
  });

  it('contains a fork loop with the process limit, counted per sandbox', async () => {
    // dash fails fast on EAGAIN (bash would retry); the sleeps outlive their shell, and the
    // sandbox then holds them for 2 s by exec-ing (not forking) one more sleep.
    const id = randomUUID();
    const bomb = run(['bash', '-c', `sh -c 'i=0; while [ $i -lt 200 ]; do sleep 3 & i=$((i+1)); echo $i > count; done' 2>err; exec sleep 2`], {
      sandboxId: id,
      limits: { processes: 20 },
    });
    await sleep(500);
    // A second sandbox with the same limit still forks freely while the first is full.
    const neighbour = await run(['sh', '-c', 'for i in 1 2 3 4 5 6 7 8 9 10; do sleep 0.1 & done; wait; echo ok'], { limits: { processes: 20 } });
    expect(neighbour.stdout).toBe('ok\n');

    const result = await bomb;
    expect(result.exitCode).toBe(0);
    const workspace = await t.driver.ensureWorkspace(id);
    expect(Number(readFileSync(path.join(workspace, 'count'), 'utf8'))).toBeLessThan(20);
    expect(readFileSync(path.join(workspace, 'err'), 'utf8')).toMatch(/Cannot fork/);
  });

  it('stops a file write at the file-size limit', async () => {
    const id = randomUUID();
    const result = await run(['bash', '-c', 'head -c 2M /dev/zero > big'], { sandboxId: id, limits: { fileSizeBytes: 1024 * 1024 } });
    expect(result.signal).toBe('SIGXFSZ');
    expect((await stat(path.join(await t.driver.ensureWorkspace(id), 'big'))).size).toBe(1024 * 1024);
  });

  it('truncates output over the cap and says so, per stream', async () => {
    const result = await run(['bash', '-c', "head -c 200000 /dev/zero | tr '\\0' a; echo oops >&2"], { maxOutputBytes: 1000 });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe('a'.repeat(1000));
    expect(result.stdoutTruncated).toBe(true);
    expect(result.stderr).toBe('oops\n');
    expect(result.stderrTruncated).toBe(false);
  });

  it('kills the whole sandbox, background processes included, at the wall-clock timeout', async () => {
    const result = await run(['bash', '-c', 'sleep 31.5 & sleep 31.5'], { timeoutMs: 500 });
    expect(result).toMatchObject({ timedOut: true, exitCode: null, signal: 'SIGKILL' });
    // The deadline is the subject: 500 ms, far from the 31.5 s the command would take.
    expect(result.durationMs).toBeLessThan(15_000);
    await vi.waitFor(() => expect(hostProcessesRunning('sleep\u000031.5')).toBe(0), { timeout: 10_000, interval: 100 });
  });
});

function hostProcessesRunning(cmdline: string): number {
  return readdirSync('/proc').filter((entry) => {
    if (!/^\d+$/.test(entry)) return false;
    try {
      return readFileSync(`/proc/${entry}/cmdline`, 'utf8').startsWith(cmdline);
    } catch {
      return false;
    }
  }).length;
}

describe.skipIf((process.getuid?.() ?? 1) !== 0)('local sandbox driver: the workspace disk limit (issue 28)', () => {
  // A 32 MiB workspace, so the test writes little.
  const small = { ...BUILT_IN_SNAPSHOT, resource: { ...BUILT_IN_SNAPSHOT.resource, diskMb: 32 } };
  const hostBytes = async (file: string) => (await stat(file)).blocks * 512;

  it('stops one command that writes many files past diskMb; the host keeps at most the limit; deleting files recovers', async () => {
    const sandboxId = randomUUID();
    // Eight 8 MiB files: each under the per-file limit, 64 MiB together, twice the workspace.
    const flood = await run(['bash', '-c', 'for i in 1 2 3 4 5 6 7 8; do head -c 8388608 /dev/zero > big-$i || exit 3; done'], {
      sandboxId,
      snapshot: small,
      timeoutMs: 30_000,
    });
    expect(flood.exitCode).toBe(3);
    expect(flood.stderr).toMatch(/No space left on device/);
    expect(flood.workspaceFullMb).toBe(32);
    // What the host holds for this workspace: its image, sparse, never more than the limit.
    const sandboxDir = path.join(t.dataDir, 'sandboxes', sandboxId);
    expect(readdirSync(sandboxDir).sort()).toEqual(['workspace', 'workspace.ext4']);
    expect(await hostBytes(path.join(sandboxDir, 'workspace.ext4'))).toBeLessThanOrEqual(32 * 1024 * 1024);
    // The agent can recover: delete files, write again.
    const recovered = await run(['bash', '-c', 'rm -f big-*; head -c 1048576 /dev/zero > small && ls'], { sandboxId, snapshot: small });
    expect(recovered).toMatchObject({ exitCode: 0, stdout: 'small\n', workspaceFullMb: null });
  }, 60_000);

  it('keeps the files across commands and a driver restart (the image is mounted again)', async () => {
    const sandboxId = randomUUID();
    expect((await run(['bash', '-c', 'echo kept > note.txt'], { sandboxId, snapshot: small })).exitCode).toBe(0);
    await t.driver.close();
    t = await createTestDriver({}, t.dataDir);
    const again = await run(['bash', '-c', 'cat note.txt; ls -A'], { sandboxId, snapshot: small });
    // No lost+found: a fresh workspace is empty (a restore from backup depends on it).
    expect(again.stdout).toBe('kept\nnote.txt\n');
  });
});

describe('local sandbox driver: the workspace disk limit without a file system of its own (issue 28)', () => {
  // A worker that cannot mount (not root, no loop devices): the driver measures the workspace.
  let plain: TestDriver;
  beforeAll(async () => {
    plain = await createTestDriver({ sizedWorkspaces: false });
  });
  afterAll(() => plain.cleanup());
  const small = { ...BUILT_IN_SNAPSHOT, resource: { ...BUILT_IN_SNAPSHOT.resource, diskMb: 32 } };
  const MIB = 1024 * 1024;
  const exec = (sandboxId: string, script: string) =>
    plain.driver.exec({ sandboxId, snapshot: small, argv: ['bash', '-c', script], network: { mode: 'none' }, timeoutMs: 30_000 });
  // What the host holds for the workspace, as du counts it.
  const hostBytes = async (sandboxId: string) => {
    const workspace = await plain.driver.ensureWorkspace(sandboxId);
    let bytes = 0;
    for (const name of readdirSync(workspace)) bytes += (await stat(path.join(workspace, name))).blocks * 512;
    return bytes;
  };

  it('stops one file at what is left of diskMb', async () => {
    const sandboxId = randomUUID();
    expect((await exec(sandboxId, 'head -c 8388608 /dev/zero > first')).exitCode).toBe(0);
    const big = await exec(sandboxId, 'head -c 67108864 /dev/zero > big');
    expect(big.signal).toBe('SIGXFSZ');
    expect(big.workspaceFullMb).toBe(32);
    expect(await hostBytes(sandboxId)).toBeLessThanOrEqual(32 * MIB);
  });

  it('stops a command writing many files past diskMb, refuses growth until files are deleted, then works again', async () => {
    const sandboxId = randomUUID();
    // Twelve 8 MiB files, each under the per-file limit: 96 MiB, three times the workspace.
    const flood = await exec(sandboxId, 'for i in $(seq 1 12); do head -c 8388608 /dev/zero > big-$i || exit 3; done');
    expect(flood).toMatchObject({ exitCode: null, signal: 'SIGKILL', timedOut: false, workspaceFullMb: 32 });
    expect(flood.stderr).toMatch(/over its disk limit of 32 MiB/);
    // Stopped before the 96 MiB the command meant to write. How far past the limit it got is the
    // writer's speed times the watchdog's reaction (a statfs tick, then a `find`): 8 MiB files
    // from /dev/zero land in milliseconds, and on a slow day 64 MiB were written before the stop.
    expect(await hostBytes(sandboxId)).toBeLessThan(96 * MIB);

    // Over the limit, a command still runs (the agent can look and delete) but nothing grows.
    const look = await exec(sandboxId, 'ls | wc -l; echo more > note');
    expect(look.stdout).toMatch(/^\d+\n$/);
    expect(look.exitCode).not.toBe(0);
    expect(look.workspaceFullMb).toBe(32);

    // Deleting brings it under; the next command writes again.
    expect(await exec(sandboxId, 'rm -f big-* note')).toMatchObject({ exitCode: 0, workspaceFullMb: null });
    const recovered = await exec(sandboxId, 'head -c 1048576 /dev/zero > small && ls');
    expect(recovered).toMatchObject({ exitCode: 0, stdout: 'small\n', workspaceFullMb: null });
    expect(await hostBytes(sandboxId)).toBe(1024 * 1024);
  }, 60_000);

  it('counts files, not only bytes: a flood of empty files is stopped too', async () => {
    const sandboxId = randomUUID();
    // Each entry counts at least 4 KiB, so 32 MiB holds 8,192 of them; the stop comes one scan
    // interval later (a few thousand entries on a busy host, 14,000 on a slow day), before the
    // 40,000 asked for.
    const flood = await exec(sandboxId, 'for i in $(seq 1 40000); do : > f$i; done');
    expect(flood).toMatchObject({ signal: 'SIGKILL', workspaceFullMb: 32 });
    expect(readdirSync(await plain.driver.ensureWorkspace(sandboxId)).length).toBeLessThan(30_000);
  }, 60_000);
});
