import { execFile } from 'node:child_process';
import { chmod, lstat, readdir, statfs } from 'node:fs/promises';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * The workspace size limit where the workspace cannot be a file system of its own (a non-root
 * worker, or no loop devices; see workspace-quota.ts): the driver measures the workspace before a
 * command, lowers RLIMIT_FSIZE to what is left, measures again every few tens of milliseconds
 * while the command runs (killing the sandbox when it goes over) and once more after it. Weaker
 * than ENOSPC: many files written at once can pass the limit by what the disk takes in one
 * interval before the sandbox is killed (README.md, docs/decisions/workspace-disk-limit.md have the figures).
 *
 * Every file and directory counts at least one 4 KiB block (so creating empty files is paid for,
 * and inodes are bounded too), a file its allocated or apparent size, whichever is larger (a
 * sparse file is paid for as the backup and a restore would write it), hard links once.
 */
export type WorkspaceUsage = { bytes: number; largestFileBytes: number };

const ENTRY_BYTES = 4096;
/** How often the watchdog reads the host file system's free space (one statfs, no scan). */
const TICK_MS = 20;
/** A scan runs when the host's free space or free inodes fell by this much since the last one ... */
const DROP_BYTES = 4 * 1024 * 1024;
const DROP_INODES = 1024;
/** ... and at least this often (free space freed elsewhere may hide growth), but never more than a tenth of the time. */
const SCAN_EVERY_MS = 1_000;
const SCAN_SHARE = 10;
const FIND_MAX_BUFFER = 256 * 1024 * 1024;

/**
 * Measures `root` with GNU find (fts: never follows symbolic links, `-xdev` keeps to the
 * workspace's file system; ~40 ms for 10,000 files, a fifth of a Node walk). Where find cannot
 * read a directory (only a non-root worker, which owns the files, meets one the sandbox made
 * unreadable), a Node walk makes it owner-readable again and counts it.
 */
export async function measureWorkspace(root: string): Promise<WorkspaceUsage> {
  let output: string;
  try {
    ({ stdout: output } = await run('find', [root, '-xdev', '-mindepth', '1', '-printf', '%y %n %i %b %s\\n'], {
      maxBuffer: FIND_MAX_BUFFER,
      env: { PATH: '/usr/bin:/bin', LC_ALL: 'C' },
    }));
  } catch (error) {
    // Entries the sandbox deletes mid-scan make find exit 1; what it printed still counts.
    const failed = error as { stdout?: string; stderr?: string };
    if (typeof failed.stdout !== 'string' || typeof failed.stderr !== 'string' || failed.stderr.includes('Permission denied')) return walkWorkspace(root);
    output = failed.stdout;
  }
  const seen = new Set<string>();
  const usage: WorkspaceUsage = { bytes: 0, largestFileBytes: 0 };
  for (const line of output.split('\n')) {
    if (line === '') continue;
    const [type, links, inode, blocks, size] = line.split(' ');
    if (type !== 'd' && Number(links) > 1) {
      if (seen.has(inode!)) continue;
      seen.add(inode!);
    }
    const bytes = Math.max(ENTRY_BYTES, Number(blocks) * 512, type === 'f' ? Number(size) : 0);
    usage.bytes += bytes;
    if (type === 'f') usage.largestFileBytes = Math.max(usage.largestFileBytes, bytes);
  }
  return usage;
}

/** The same measure in Node, slower, for trees find could not read entirely. */
async function walkWorkspace(root: string): Promise<WorkspaceUsage> {
  const top = await lstat(root);
  const seen = new Set<number>();
  const usage: WorkspaceUsage = { bytes: 0, largestFileBytes: 0 };
  const pending = [root];
  while (pending.length > 0) {
    const dir = pending.pop()!;
    const names = await listDir(dir);
    for (const name of names) {
      const entry = path.join(dir, name);
      const info = await lstat(entry).catch(() => null);
      if (!info || info.dev !== top.dev) continue;
      if (info.nlink > 1 && !info.isDirectory()) {
        if (seen.has(info.ino)) continue;
        seen.add(info.ino);
      }
      const bytes = Math.max(ENTRY_BYTES, info.blocks * 512, info.isFile() ? info.size : 0);
      usage.bytes += bytes;
      if (info.isFile()) usage.largestFileBytes = Math.max(usage.largestFileBytes, bytes);
      if (info.isDirectory()) pending.push(entry);
    }
  }
  return usage;
}

async function listDir(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return [];
    if (code !== 'EACCES') throw error;
    const info = await lstat(dir);
    await chmod(dir, (info.mode & 0o7777) | 0o500);
    return readdir(dir).catch(() => []);
  }
}

export type UsageGuard = {
  /**
   * RLIMIT_FSIZE for this command: what is left, or the largest file's size when that is more
   * (so a large file can still be rewritten in place; only a new file that large passes the
   * limit, by less than the limit); 0 when the workspace is over, so nothing grows until files
   * are deleted (in one command, and writing in the next).
   */
  fileSizeBytes: number;
  /** Aborted when the workspace went over the limit while the command ran. */
  signal: AbortSignal;
  /** Stops watching; whether the command was stopped and whether the workspace is (nearly) full now. */
  finish(): Promise<{ stopped: boolean; full: boolean }>;
  /** Stops watching (idempotent; for a command that never ran). */
  stop(): void;
};

/** Watches a plain-directory workspace for one command against `limitBytes` (see above). */
export async function guardWorkspaceUsage(workspace: string, limitBytes: number, fullBelowBytes: number): Promise<UsageGuard> {
  const before = await measureWorkspace(workspace);
  const remaining = limitBytes - before.bytes;
  // A workspace already over the limit (a restore, or a file the stop came too late for) may
  // shrink but not grow: deleting files is how the agent recovers.
  const threshold = Math.max(limitBytes, before.bytes);
  const controller = new AbortController();
  let watching = true;
  const free = async () => {
    const info = await statfs(workspace);
    return { bytes: info.bavail * info.bsize, inodes: info.ffree };
  };
  const watch = (async () => {
    try {
      await watchLoop();
    } catch {
      // The workspace went away (removed mid-command): nothing left to watch.
    }
  })();
  async function watchLoop() {
    let freeAtScan = await free();
    let lastScan = performance.now();
    let scanMs = 0;
    while (watching) {
      await sleep(TICK_MS);
      if (!watching) return;
      const freeNow = await free();
      const since = performance.now() - lastScan;
      const dropped = freeAtScan.bytes - freeNow.bytes >= DROP_BYTES || freeAtScan.inodes - freeNow.inodes >= DROP_INODES;
      const due = since >= Math.max(SCAN_EVERY_MS, scanMs * SCAN_SHARE) || (dropped && since >= scanMs);
      if (!due) continue;
      const started = performance.now();
      const now = await measureWorkspace(workspace).catch(() => null);
      lastScan = performance.now();
      scanMs = lastScan - started;
      freeAtScan = freeNow;
      if (now && now.bytes > threshold) {
        controller.abort();
        return;
      }
    }
  }
  return {
    fileSizeBytes: remaining > 0 ? Math.max(remaining, before.largestFileBytes) : 0,
    signal: controller.signal,
    async finish() {
      watching = false;
      await watch;
      const after = await measureWorkspace(workspace);
      const stopped = controller.signal.aborted;
      return { stopped, full: stopped || after.bytes > limitBytes - fullBelowBytes };
    },
    stop() {
      watching = false;
    },
  };
}
