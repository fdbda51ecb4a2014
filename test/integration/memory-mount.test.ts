import { createHash, randomUUID } from 'node:crypto';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalSandboxDriver, MountReadError, type MountedFile } from '../../activities/sandbox/local/driver.ts';
import { memoryMountDir } from '../../activities/sandbox/local/memory-mount.ts';
import { workspaceDir } from '../../activities/sandbox/local/workspace.ts';
import { BUILT_IN_SNAPSHOT } from '../../domain/sandbox/snapshot-registry.ts';

/**
 * The local driver's memory mount (activities/sandbox/local/memory-mount.ts) in real bubblewrap
 * sandboxes: after a command that left the mount alone nothing is read, and every kind of change
 * a command can make is seen by the read-back, including changes in directories the command
 * made, in ones it removed and made again, a same-size rewrite in place, a write through a second
 * hard link and more changes than the watch keeps names of.
 */
let dataDir: string;
let driver: ReturnType<typeof createLocalSandboxDriver>;
const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const MOUNT = 'notes';
const INSIDE = `/mnt/memory/${MOUNT}`;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'memory-mount-test-'));
  await chmod(dataDir, 0o711);
  driver = createLocalSandboxDriver({ dataDir });
});
afterAll(async () => {
  await driver?.close();
  await rm(dataDir, { recursive: true, force: true });
});

/** Brings the sandbox's mount in line with `files` (memory path → content), as the tool runner does. */
const sync = (sandboxId: string, files: Record<string, string>) =>
  driver.syncMemoryMount(
    sandboxId,
    undefined,
    MOUNT,
    Object.entries(files).map(([path, text]) => ({ path, sha256: sha(text) })),
    async (wanted) => new Map(wanted.map((p) => [p, Buffer.from(files[p]!, 'utf8')])),
  );
/** A command with the mount bound, and the mount read back after it. */
async function runMounted(sandboxId: string, command: string) {
  const result = await driver.exec({
    sandboxId,
    snapshot: BUILT_IN_SNAPSHOT,
    argv: ['bash', '-c', command],
    network: { mode: 'none' },
    timeoutMs: 30_000,
    memoryMounts: [{ name: MOUNT, readOnly: false }],
  });
  expect(result.exitCode, result.stderr).toBe(0);
  return { stdout: result.stdout, after: await driver.readMemoryMount(sandboxId, undefined, MOUNT) };
}
async function mounted(files: Record<string, string>) {
  const sandboxId = randomUUID();
  await sync(sandboxId, files);
  return { sandboxId, run: async (command: string): Promise<MountedFile[]> => (await runMounted(sandboxId, command)).after };
}
/** The files that came back with their bytes (what the read-back found changed or new). */
const changed = (files: MountedFile[]) => Object.fromEntries(files.flatMap((file) => ('content' in file ? [[file.path, file.content.toString('utf8')]] : [])));
const paths = (files: MountedFile[]) => files.map((file) => file.path);

describe('the local memory mount', () => {
  it('reads nothing after a command that left the mount alone, and sees every kind of change', async () => {
    const { run } = await mounted({ '/a.md': 'alpha', '/deep/b.md': 'bravo', '/deep/er/c.md': 'charlie' });
    const untouched = await run(`cat ${INSIDE}/deep/b.md > /dev/null; ls -R ${INSIDE} > /dev/null`);
    expect(paths(untouched)).toEqual(['/a.md', '/deep/b.md', '/deep/er/c.md']);
    expect(changed(untouched)).toEqual({});

    // The same size, in place, deep down.
    expect(changed(await run(`printf CHARLIE > ${INSIDE}/deep/er/c.md`))).toEqual({ '/deep/er/c.md': 'CHARLIE' });
    // A directory the command makes, then a change inside it by the next command.
    expect(changed(await run(`mkdir -p ${INSIDE}/new/dir && printf one > ${INSIDE}/new/dir/n.md`))).toEqual({ '/new/dir/n.md': 'one' });
    expect(changed(await run(`printf two > ${INSIDE}/new/dir/n.md`))).toEqual({ '/new/dir/n.md': 'two' });
    // A directory removed and made again, then a change inside the new one.
    expect(changed(await run(`rm -rf ${INSIDE}/deep && mkdir -p ${INSIDE}/deep && printf b2 > ${INSIDE}/deep/b.md`))).toEqual({ '/deep/b.md': 'b2' });
    expect(changed(await run(`printf b3 > ${INSIDE}/deep/b.md`))).toEqual({ '/deep/b.md': 'b3' });
    // A rename and a removal.
    const moved = await run(`mv ${INSIDE}/a.md ${INSIDE}/new/a.md && rm ${INSIDE}/new/dir/n.md`);
    expect(paths(moved)).toEqual(['/deep/b.md', '/new/a.md']);
    expect(changed(moved)).toEqual({ '/new/a.md': 'alpha' });
    // A name like the driver's own barrier files is a file like any other.
    expect(changed(await run(`printf x > ${INSIDE}/.barrier-${'0'.repeat(32)}`))).toEqual({ [`/.barrier-${'0'.repeat(32)}`]: 'x' });
    expect(changed(await run('true'))).toEqual({});
  }, 120_000);

  it('sees a change through a second hard link, and many changes at once', async () => {
    const { run } = await mounted({ '/a.md': 'alpha' });
    expect(changed(await run(`ln ${INSIDE}/a.md ${INSIDE}/b.md`))).toMatchObject({ '/b.md': 'alpha' });
    expect(changed(await run(`printf ALPHA > ${INSIDE}/b.md`))).toEqual({ '/a.md': 'ALPHA', '/b.md': 'ALPHA' });
    const many = await run(`for i in $(seq 300); do echo $i > ${INSIDE}/m$i.md; done; rm ${INSIDE}/a.md ${INSIDE}/b.md`);
    expect(paths(many)).toHaveLength(300);
    expect(Object.keys(changed(many))).toHaveLength(300);
    expect(changed(many)['/m7.md']).toBe('7\n');
    expect(changed(await run(`printf 8 > ${INSIDE}/m8.md`))).toEqual({ '/m8.md': '8' });
    expect(changed(await run('true'))).toEqual({});
  }, 120_000);

  it('a mount brought in line with a changed store shows the store, and the driver’s writes are not the command’s', async () => {
    const sandboxId = randomUUID();
    const store: Record<string, string> = { '/keep.md': 'kept', '/old.md': 'old' };
    const run = async (command: string) => {
      await sync(sandboxId, store);
      return runMounted(sandboxId, command);
    };
    expect((await run(`cat ${INSIDE}/old.md`)).stdout).toBe('old');
    // Another session changes the store between commands.
    delete store['/old.md'];
    store['/keep.md'] = 'KEPT';
    store['/fresh/f.md'] = 'fresh';
    const next = await run(`cat ${INSIDE}/keep.md ${INSIDE}/fresh/f.md; ls ${INSIDE}`);
    expect(next.stdout).toBe('KEPTfreshfresh\nkeep.md\n');
    expect(changed(next.after)).toEqual({});
    expect(paths(next.after)).toEqual(['/fresh/f.md', '/keep.md']);
  }, 120_000);

  it('a mount directory that is gone after the command reads as an error, not as every memory deleted', async () => {
    const { sandboxId, run } = await mounted({ '/a.md': 'alpha' });
    await run('true');
    await rm(memoryMountDir(workspaceDir(dataDir, sandboxId), MOUNT), { recursive: true });
    await expect(driver.readMemoryMount(sandboxId, undefined, MOUNT)).rejects.toBeInstanceOf(MountReadError);
  }, 120_000);
});
