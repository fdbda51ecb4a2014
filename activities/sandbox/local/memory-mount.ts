import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, type BigIntStats } from 'node:fs';
import { chown, lstat, mkdir, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { InternalConfigurationError } from '../../../domain/errors.ts';
import { MEMORY_WORKSPACE_DIR } from './bwrap-args.ts';
import { MountWatch } from './mount-watch.ts';
import type { SandboxUser } from './workspace.ts';

/**
 * A memory store's directory in a sandbox's workspace (`.svc/memory/<name>` on the host, bound at
 * `/mnt/memory/<name>` inside): brought in line with the store before a command, read back after
 * it. The driver remembers what it last left there (each file's hash and its inode, size and
 * change time) and watches the tree (mount-watch.ts), so a command on an unchanged store rewrites
 * and rereads nothing, and one that changed something costs a walk in which only the files whose
 * stat moved are read. Without that memory (another worker, a restart) the directory is written
 * afresh. Files only; what is not a regular file is not read.
 */
export type WantedFile = { path: string; sha256: string };
/** A file after the command: its bytes when it changed (or is new), else the hash it had. */
export type MountedFile = { path: string; content: Buffer } | { path: string; unchangedSha256: string };

/** What one read-back takes at most: more is an error, not a silent cut. */
export const MOUNT_READ_LIMITS = { files: 10_000, fileBytes: 1024 * 1024, totalBytes: 64 * 1024 * 1024 };

const NAME = /^[a-z0-9]+(-[a-z0-9]+)*$/;

type Seen = { sha256: string; stamp: string };
/** What the driver left in each mount directory: path → hash and stat stamp, and the tree's watch. */
export type MountMemory = Map<string, { files: Map<string, Seen>; watch: MountWatch }>;

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
  const owned = (process.getuid?.() ?? 0) === 0;
  let state = input.memory.get(dir);
  if (!state) {
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true });
    if (owned)
      for (let at = dir; at.startsWith(input.workspace) && at !== input.workspace; at = path.dirname(at)) await chown(at, input.user.uid, input.user.gid);
    state = { files: new Map(), watch: new MountWatch(dir) };
    input.memory.set(dir, state);
  }
  const known = state.files;
  const wantedPaths = new Set(wanted.map((file) => file.path));
  const gone = [...known.keys()].filter((file) => !wantedPaths.has(file));
  const stale = wanted.filter((file) => known.get(file.path)?.sha256 !== file.sha256);
  if (gone.length === 0 && stale.length === 0 && state.watch.watching()) return;
  for (const file of gone) {
    await unlink(path.join(dir, file)).catch(() => {});
    known.delete(file);
  }
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
  // What the command starts from is what the driver knows; its own writes are not the command's.
  state.watch.watch(walkDirectory(dir).dirs);
}

/**
 * Every regular file under the directory, by memory path, in path order: the bytes of those whose
 * stat moved since the driver last saw them (or that are new), the remembered hash of the rest.
 * Only the entries the tree's watch names are looked at; the whole tree is walked when it cannot
 * name them (or the driver has no memory of the directory).
 */
export async function readMemoryMount(input: { workspace: string; name: string; memory: MountMemory }): Promise<MountedFile[]> {
  const dir = memoryMountDir(input.workspace, input.name);
  let state = input.memory.get(dir);
  if (!state) input.memory.set(dir, (state = { files: new Map(), watch: new MountWatch(dir) }));
  const changes = await state.watch.changed();
  // No directory is not "every memory deleted": nothing is written back.
  if (!lstatSync(dir, { throwIfNoEntry: false })?.isDirectory()) throw new MountReadError('its directory is gone');
  const known = state.files;
  const toMemoryPath = (full: string) => full.slice(dir.length).split(path.sep).join('/');
  // What is there now: the remembered files, less what the named entries were, plus what they are.
  let present: Array<{ full: string; info: BigIntStats }>;
  let next: Map<string, Seen>;
  let newDirs: string[];
  const looked = changes.kind === 'entries' ? lookAt(dir, changes.entries, toMemoryPath) : null;
  if (looked) {
    next = new Map(known);
    for (const entry of looked.entries)
      for (const memoryPath of next.keys()) if (memoryPath === entry || memoryPath.startsWith(`${entry}/`)) next.delete(memoryPath);
    present = looked.files;
    newDirs = looked.dirs;
  } else if (changes.kind === 'none') {
    next = new Map(known);
    present = [];
    newDirs = [];
  } else {
    const tree = walkDirectory(dir);
    if (tree.files.length > MOUNT_READ_LIMITS.files) throw new MountReadError(`the directory holds more than ${MOUNT_READ_LIMITS.files} files`);
    next = new Map();
    present = tree.files.map((full) => ({ full, info: lstatSync(full, { bigint: true }) }));
    newDirs = tree.dirs;
  }
  const contents = new Map<string, Buffer>();
  let total = 0;
  for (const { full, info } of present) {
    const memoryPath = toMemoryPath(full);
    const stamp = stampOf(info);
    const seen = known.get(memoryPath);
    if (seen && seen.stamp === stamp) {
      next.set(memoryPath, seen);
      continue;
    }
    if (info.size > BigInt(MOUNT_READ_LIMITS.fileBytes))
      throw new MountReadError(`the directory holds ${memoryPath}, larger than ${MOUNT_READ_LIMITS.fileBytes} bytes`);
    total += Number(info.size);
    if (total > MOUNT_READ_LIMITS.totalBytes) throw new MountReadError(`the directory holds more than ${MOUNT_READ_LIMITS.totalBytes} bytes of changed files`);
    const content = await readFile(full);
    contents.set(memoryPath, content);
    next.set(memoryPath, { sha256: sha256(content), stamp });
  }
  if (next.size > MOUNT_READ_LIMITS.files) throw new MountReadError(`the directory holds more than ${MOUNT_READ_LIMITS.files} files`);
  // What is there now is what the next command starts from (the store catches up in the next sync).
  state.files = next;
  if (looked) {
    state.watch.add(newDirs);
    state.watch.settled();
  } else if (changes.kind === 'unknown') state.watch.watch(newDirs);
  return [...next]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([memoryPath, seen]) => {
      const content = contents.get(memoryPath);
      return content ? { path: memoryPath, content } : { path: memoryPath, unchangedSha256: seen.sha256 };
    });
}

/**
 * The entries a watch named, looked at: the regular files among them and under the directories
 * among them (with the directories, to watch), by memory path the entries to forget first. Null
 * when only a walk can tell: a file with a second hard link (a write through one names only it).
 */
function lookAt(
  dir: string,
  named: string[],
  toMemoryPath: (full: string) => string,
): { entries: string[]; files: Array<{ full: string; info: BigIntStats }>; dirs: string[] } | null {
  const entries: string[] = [];
  const files: Array<{ full: string; info: BigIntStats }> = [];
  const dirs: string[] = [];
  for (const full of named) {
    if (!full.startsWith(`${dir}${path.sep}`)) return null;
    entries.push(toMemoryPath(full));
    const info = lstatSync(full, { bigint: true, throwIfNoEntry: false });
    if (!info) continue;
    if (info.isFile()) {
      if (info.nlink > 1n) return null;
      files.push({ full, info });
    } else if (info.isDirectory()) {
      const tree = walkDirectory(full);
      dirs.push(...tree.dirs);
      for (const file of tree.files) {
        const fileInfo = lstatSync(file, { bigint: true, throwIfNoEntry: false });
        if (!fileInfo) continue;
        if (fileInfo.nlink > 1n) return null;
        files.push({ full: file, info: fileInfo });
      }
    }
  }
  // An entry named twice, or one under another named one, is one file.
  const unique = new Map(files.map((file) => [file.full, file]));
  return { entries, files: [...unique.values()], dirs };
}

/**
 * The regular files and the directories under `dir` (itself first), not following links. The
 * walk and the stats are synchronous on purpose: a thousand small syscalls cost a few
 * milliseconds in a row, and several times that as promises through the thread pool (and a
 * recursive `readdirSync` several times this walk).
 */
function walkDirectory(dir: string): { files: string[]; dirs: string[] } {
  const files: string[] = [];
  const dirs: string[] = [];
  const visit = (at: string) => {
    let entries;
    try {
      entries = readdirSync(at, { withFileTypes: true });
    } catch (error) {
      // Gone between the listing and now: not there, as far as the walk goes.
      if (at !== dir && (error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    dirs.push(at);
    for (const entry of entries) {
      const full = path.join(at, entry.name);
      if (entry.isDirectory()) visit(full);
      else if (entry.isFile()) files.push(full);
    }
  };
  visit(dir);
  return { files, dirs };
}

/** Forgets what the driver left in the mounts under `prefix` (a removed workspace, a closed driver). */
export function forgetMounts(memory: MountMemory, prefix: string): void {
  for (const [dir, state] of memory) {
    if (!dir.startsWith(prefix)) continue;
    state.watch.close();
    memory.delete(dir);
  }
}

/** The mount holds more than a store can take back; the command's changes there are not written. */
export class MountReadError extends Error {}
