import { chown, lstat, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { InternalConfigurationError } from '../../../domain/errors.ts';
import { MEMORY_WORKSPACE_DIR } from './bwrap-args.ts';
import type { SandboxUser } from './workspace.ts';

/**
 * A memory store's directory in a sandbox's workspace (`.svc/memory/<name>` on the host, bound at
 * `/mnt/memory/<name>` inside): written fresh from the store before a command, read back after
 * it. Files only; what a command leaves there that is not a regular file is not read.
 */
export type MountedFile = { path: string; content: Buffer };

/** What one read-back takes at most: more is an error, not a silent cut. */
export const MOUNT_READ_LIMITS = { files: 10_000, fileBytes: 1024 * 1024, totalBytes: 64 * 1024 * 1024 };

const NAME = /^[a-z0-9]+(-[a-z0-9]+)*$/;

export function memoryMountDir(workspace: string, name: string): string {
  if (!NAME.test(name)) throw new InternalConfigurationError(`memory mount name ${name} is not a directory name`);
  return path.join(workspace, MEMORY_WORKSPACE_DIR, name);
}

/** Replaces the directory's content with `files` (memory paths, `/a/b.md`), owned by the sandbox user. */
export async function writeMemoryMount(workspace: string, name: string, files: readonly MountedFile[], user: SandboxUser): Promise<string> {
  const dir = memoryMountDir(workspace, name);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const owned = (process.getuid?.() ?? 0) === 0;
  const made = new Set<string>([dir]);
  for (const file of files) {
    const target = path.join(dir, file.path);
    if (!target.startsWith(`${dir}${path.sep}`)) throw new InternalConfigurationError(`memory path ${file.path} leaves its mount`);
    const parent = path.dirname(target);
    if (!made.has(parent)) {
      await mkdir(parent, { recursive: true });
      made.add(parent);
    }
    await writeFile(target, file.content);
  }
  // A root worker hands the tree to the sandbox user, as it does the workspace.
  if (owned) for (const entry of [...made, ...files.map((file) => path.join(dir, file.path))]) await chown(entry, user.uid, user.gid);
  for (let parent = path.dirname(dir); owned && parent.startsWith(workspace) && parent !== workspace; parent = path.dirname(parent)) {
    await chown(parent, user.uid, user.gid);
  }
  return dir;
}

/** Every regular file under the directory, by memory path, in path order; symlinks and the rest are skipped. */
export async function readMemoryMount(workspace: string, name: string): Promise<MountedFile[]> {
  const dir = memoryMountDir(workspace, name);
  const files: MountedFile[] = [];
  let total = 0;
  const walk = async (at: string): Promise<void> => {
    const entries = await readdir(at, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return [];
      throw error;
    });
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const full = path.join(at, entry.name);
      if (entry.isDirectory()) await walk(full);
      else if (entry.isFile()) {
        const info = await lstat(full);
        if (files.length >= MOUNT_READ_LIMITS.files) throw new MountReadError(`more than ${MOUNT_READ_LIMITS.files} files`);
        if (info.size > MOUNT_READ_LIMITS.fileBytes) throw new MountReadError(`${full.slice(dir.length)} is larger than ${MOUNT_READ_LIMITS.fileBytes} bytes`);
        total += info.size;
        if (total > MOUNT_READ_LIMITS.totalBytes) throw new MountReadError(`more than ${MOUNT_READ_LIMITS.totalBytes} bytes in all`);
        files.push({ path: full.slice(dir.length).split(path.sep).join('/'), content: await readFile(full) });
      }
    }
  };
  await walk(dir);
  return files;
}

/** The mount holds more than a store can take back; the command's changes there are not written. */
export class MountReadError extends Error {}
