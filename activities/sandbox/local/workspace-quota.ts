import { execFile } from 'node:child_process';
import { access, chmod, chown, open, readdir, readFile, rm, rmdir, statfs } from 'node:fs/promises';
import * as path from 'node:path';
import { promisify } from 'node:util';
import type { SandboxUser } from './sandbox-user.ts';

const run = promisify(execFile);

/**
 * A workspace of a fixed size (issue 28): the workspace directory is the mount point of its own
 * ext4 file system in a sparse image file beside it (`<sandbox>/workspace.ext4`, the snapshot's
 * `diskMb`), so a command that writes more gets ENOSPC and the host's disk never holds more than
 * that for it. Needs a root worker and loop devices; without them the workspace is a plain
 * directory and `diskMb` caps only each file (RLIMIT_FSIZE), as README.md says.
 *
 * The mount outlives the worker process (a restarted worker finds and reuses it); the image
 * outlives the mount (a rebooted host mounts it again at the next command).
 */
const IMAGE = 'workspace.ext4';
const MIB = 1024 * 1024;
/** Below this many free bytes a command is told the workspace is full. */
export const FULL_BELOW_BYTES = 256 * 1024;

const isRoot = () => (process.getuid?.() ?? 0) === 0;

/** Whether `dir` is a mount point (of anything), from this process's mount table. */
export async function isMountPoint(dir: string): Promise<boolean> {
  const table = await readFile('/proc/self/mountinfo', 'utf8').catch(() => '');
  // Field 5 is the mount point, with spaces and backslashes octal-escaped.
  return table.split('\n').some((line) => line.split(' ')[4]?.replace(/\\(\d{3})/g, (_, octal) => String.fromCharCode(parseInt(octal, 8))) === dir);
}

/**
 * Mounts the workspace's sized file system at `workspace` (an existing, empty directory),
 * creating the image of `diskMb` on first use. Returns false (and leaves a plain directory) where
 * it cannot: not root, no loop device, no size known for a new image, or a workspace that already
 * holds files from before (it is never mounted over).
 */
export async function mountSizedWorkspace(input: { workspace: string; diskMb: number | undefined; user: SandboxUser }): Promise<boolean> {
  const { workspace, user } = input;
  if (await isMountPoint(workspace)) return true;
  if (!isRoot()) return false;
  const image = path.join(path.dirname(workspace), IMAGE);
  const created = await createImage(image, input.diskMb, user);
  if (!created && !(await exists(image))) return false;
  if ((await readdir(workspace)).length > 0) return false;
  try {
    await run('mount', ['-t', 'ext4', '-o', 'loop,nosuid,nodev', image, workspace]);
  } catch {
    if (created) await rm(image, { force: true });
    return false;
  }
  if (created) await rmdir(path.join(workspace, 'lost+found')).catch(() => {});
  await chown(workspace, user.uid, user.gid);
  await chmod(workspace, 0o700);
  return true;
}

async function createImage(image: string, diskMb: number | undefined, user: SandboxUser): Promise<boolean> {
  if (diskMb === undefined) return false;
  let handle;
  try {
    handle = await open(image, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    // Sparse: the host pays for what is written, never more than diskMb.
    await handle.truncate(diskMb * MIB);
  } finally {
    await handle.close();
  }
  try {
    // No reserved blocks; a 4 MiB journal keeps a small image small.
    await run('mkfs.ext4', ['-q', '-F', '-m', '0', '-J', 'size=4', '-E', `root_owner=${user.uid}:${user.gid}`, image]);
    return true;
  } catch {
    await rm(image, { force: true });
    return false;
  }
}

const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

/** Unmounts a sized workspace (lazily when a process still holds it); a plain one is left alone. */
export async function unmountWorkspace(workspace: string): Promise<void> {
  if (!(await isMountPoint(workspace))) return;
  await run('umount', [workspace]).catch(() => run('umount', ['-l', workspace]));
}

/** Whether a sized workspace is (nearly) full, as a command left it. */
export async function isWorkspaceFull(workspace: string): Promise<boolean> {
  if (!(await isMountPoint(workspace))) return false;
  const info = await statfs(workspace);
  return info.bavail * info.bsize < FULL_BELOW_BYTES;
}
