import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, type Dirent } from 'node:fs';
import { chown, lstat, mkdir, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { InternalConfigurationError } from '../../../domain/errors.ts';
import { MEMORY_WORKSPACE_DIR } from './bwrap-args.ts';
import type { SandboxUser } from './workspace.ts';

/**
 * A memory store's directory in a sandbox's workspace (`.svc/memory/<name>` on the host, bound at
 * `/mnt/memory/<name>` inside): brought in line with the store before a command, read back after
 * it. The driver remembers what it last left there (each file's hash and its inode, size and
 * change time), so a command on an unchanged store rewrites and rereads nothing: only the files
 * whose stat moved are read. Without that memory (another worker, a restart) the directory is
 * written afresh. Files only; what is not a regular file is not read.
 */
export type WantedFile = { path: string; sha256: string };
/** A file after the command: its bytes when it changed (or is new), else the hash it had. */
export type MountedFile = { path: string; content: Buffer } | { path: string; unchangedSha256: string };

/** What one read-back takes at most: more is an error, not a silent cut. */
export const MOUNT_READ_LIMITS = { files: 10_000, fileBytes: 1024 * 1024, totalBytes: 64 * 1024 * 1024 };

const NAME = /^[a-z0-9]+(-[a-z0-9]+)*$/;

type Seen = { sha256: string; stamp: string };
/** What the driver left in each mount directory: path → hash and stat stamp. */
export type MountMemory = Map<string, Map<string, Seen>>;

const stampOf = (info: { ino: bigint; size: bigint; ctimeNs: bigint; mtimeNs: bigint }) => `${info.ino}:${info.size}:${info.ctimeNs}:${info.mtimeNs}`;
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

export function memoryMountDir(workspace: string, name: string): string {
  if (!NAME.test(name)) throw new InternalConfigurationError(`memory mount name ${name} is not a directory name`);
  return path.join(workspace, MEMORY_WORKSPACE_DIR, name);
}

/**
 * Brings the directory in line with `wanted` (memory paths, `/a/b.md`, and their content hashes):
 * writes what is missing or different (its bytes from `load`), removes what the store no longer
 * has, all owned by the sandbox user.
 */
export async function syncMemoryMount(
  input: { workspace: string; name: string; user: SandboxUser; memory: MountMemory },
  wanted: readonly WantedFile[],
  load: (paths: string[]) => Promise<Map<string, Buffer>>,
): Promise<void> {
  const dir = memoryMountDir(input.workspace, input.name);
  const key = dir;
  let known = input.memory.get(key);
  if (!known) {
    await rm(dir, { recursive: true, force: true });
    known = new Map();
  }
  await mkdir(dir, { recursive: true });
  const owned = (process.getuid?.() ?? 0) === 0;
  if (owned)
    for (let at = dir; at.startsWith(input.workspace) && at !== input.workspace; at = path.dirname(at)) await chown(at, input.user.uid, input.user.gid);
  const wantedPaths = new Set(wanted.map((file) => file.path));
  for (const [file] of known) {
    if (!wantedPaths.has(file)) {
      await unlink(path.join(dir, file)).catch(() => {});
      known.delete(file);
    }
  }
  const stale = wanted.filter((file) => known.get(file.path)?.sha256 !== file.sha256);
  const bytes = stale.length === 0 ? new Map<string, Buffer>() : await load(stale.map((file) => file.path));
  const made = new Set<string>([dir]);
  for (const file of stale) {
    const target = path.join(dir, file.path);
    if (!target.startsWith(`${dir}${path.sep}`)) throw new InternalConfigurationError(`memory path ${file.path} leaves its mount`);
    for (let parent = path.dirname(target); !made.has(parent); parent = path.dirname(parent)) {
      await mkdir(parent, { recursive: true });
      if (owned) await chown(parent, input.user.uid, input.user.gid);
      made.add(parent);
    }
    // A directory the agent left where a memory now is, or a file where its folder is, goes first.
    await rm(target, { recursive: true, force: true });
    await writeFile(target, bytes.get(file.path) ?? Buffer.alloc(0));
    if (owned) await chown(target, input.user.uid, input.user.gid);
    known.set(file.path, { sha256: file.sha256, stamp: stampOf(await lstat(target, { bigint: true })) });
  }
  input.memory.set(key, known);
}

/**
 * Every regular file under the directory, by memory path, in path order: the bytes of those whose
 * stat moved since the driver last saw them (or that are new), the remembered hash of the rest.
 */
export async function readMemoryMount(input: { workspace: string; name: string; memory: MountMemory }): Promise<MountedFile[]> {
  const dir = memoryMountDir(input.workspace, input.name);
  const known = input.memory.get(dir) ?? new Map<string, Seen>();
  // The walk and the stats are synchronous on purpose: a thousand small syscalls cost a few
  // milliseconds in a row, and several times that as promises through the thread pool.
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { recursive: true, withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    entries = [];
  }
  const regular = entries.filter((entry) => entry.isFile()).map((entry) => path.join(entry.parentPath, entry.name));
  if (regular.length > MOUNT_READ_LIMITS.files) throw new MountReadError(`more than ${MOUNT_READ_LIMITS.files} files`);
  const stats = regular.map((full) => ({ full, info: lstatSync(full, { bigint: true }) }));
  const next = new Map<string, Seen>();
  const files: MountedFile[] = [];
  let total = 0;
  for (const { full, info } of stats.sort((a, b) => (a.full < b.full ? -1 : 1))) {
    const memoryPath = full.slice(dir.length).split(path.sep).join('/');
    const stamp = stampOf(info);
    const seen = known.get(memoryPath);
    if (seen && seen.stamp === stamp) {
      files.push({ path: memoryPath, unchangedSha256: seen.sha256 });
      next.set(memoryPath, seen);
      continue;
    }
    if (info.size > BigInt(MOUNT_READ_LIMITS.fileBytes)) throw new MountReadError(`${memoryPath} is larger than ${MOUNT_READ_LIMITS.fileBytes} bytes`);
    total += Number(info.size);
    if (total > MOUNT_READ_LIMITS.totalBytes) throw new MountReadError(`more than ${MOUNT_READ_LIMITS.totalBytes} bytes of changed files`);
    const content = await readFile(full);
    files.push({ path: memoryPath, content });
    next.set(memoryPath, { sha256: sha256(content), stamp });
  }
  // What is there now is what the next command starts from (the store catches up in the next sync).
  input.memory.set(dir, next);
  return files;
}

/** The mount holds more than a store can take back; the command's changes there are not written. */
export class MountReadError extends Error {}
