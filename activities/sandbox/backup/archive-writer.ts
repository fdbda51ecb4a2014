import { createHash } from 'node:crypto';
import { constants, type BigIntStats } from 'node:fs';
import { lstat, open, readdir, readlink, type FileHandle } from 'node:fs/promises';
import tarStream, { type Header, type Pack } from 'tar-stream';
import { InternalConfigurationError } from '../../../domain/errors.ts';
import { isSafePathSegment, MAX_PATH_BYTES } from '../../../domain/workspace-files/manifest.ts';

/**
 * Packing a sandbox workspace into a backup archive (worker side; the format is described in
 * `services/runtime/workspace-files/archive-reader.ts`, which verifies it before serving a file).
 *
 * - Deterministic: entries in bytewise order of their tar names (directories end in `/`, so each
 *   directory comes right before its contents), mtimes zeroed, uid/gid 0, no user or group
 *   names, modes normalized (files 0644, or 0755 when any execute bit is set; directories 0755;
 *   symlinks 0777). The same tree always gives the same bytes and SHA-256. Restored files carry
 *   the epoch as mtime; the manifest's `createdAt` says when the backup was taken.
 * - Never follows a symlink: the workspace root is opened with O_NOFOLLOW, and every name is
 *   resolved relative to its already-open parent directory through `/proc/self/fd/<fd>/<name>`
 *   (Linux's openat without native bindings), so swapping a file or a directory for a symlink
 *   mid-walk cannot redirect a read outside the workspace. Files are opened with O_NOFOLLOW and
 *   O_NONBLOCK (a swapped-in FIFO cannot block the worker) and must still be the same regular
 *   file (device and inode) that lstat saw.
 * - Symlinks are recorded as symlink entries with their target text; never followed, never in
 *   `files`. Hard links are archived as independent regular files. Sockets, FIFOs and devices
 *   are skipped.
 * - Names the API could not list or serve (see `isSafePathSegment`: control characters,
 *   backslashes, ill-formed UTF-8, over 255 bytes, paths over 4096 bytes) are skipped with their
 *   subtree; so are entries that vanish, change or cannot be opened during the walk. The caller
 *   records the `skipped` counts.
 */

/**
 * Largest archive a backup may produce, in bytes (headers and padding included). A larger
 * workspace is not backed up: the call returns `too_large` and the backup step records the
 * refusal; the previous generation stays the latest.
 */
export const MAX_WORKSPACE_BACKUP_BYTES = 256 * 1024 * 1024;

export type WorkspaceArchiveFile = { path: string; sizeBytes: number; sha256: string };

export type WorkspaceArchiveSkipped = {
  /** Names (or symlink targets) that are not safe relative paths; their subtrees too. */
  unsafeNames: number;
  /** Sockets, FIFOs, character and block devices. */
  specialFiles: number;
  /** Entries that vanished, changed type or could not be opened while the walk ran. */
  unreadable: number;
};

export type WorkspaceArchiveResult =
  { ok: true; archive: Buffer; files: WorkspaceArchiveFile[]; skipped: WorkspaceArchiveSkipped } | { ok: false; reason: 'too_large' };

const BLOCK = 512;
const EPOCH = new Date(0);
const READ_CHUNK = 64 * 1024;
const DIRECTORY_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
const FILE_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY;
// The walk races the filesystem; these mean "no longer what lstat saw" or "not ours to read".
const SKIPPABLE_ERRORS = new Set(['ENOENT', 'ENOTDIR', 'ELOOP', 'ENXIO', 'EACCES', 'EPERM', 'EINVAL']);

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

type WalkState = {
  pack: Pack;
  remaining: number;
  files: WorkspaceArchiveFile[];
  skipped: WorkspaceArchiveSkipped;
};

class TooLarge extends Error {}

/**
 * Archives `workspaceDir` (an absolute host path that must itself be a directory, not a symlink)
 * into an in-memory tar, with the SHA-256 of every regular file computed as it is read. Returns
 * `too_large` as soon as the archive would exceed `maxBytes` (default
 * `MAX_WORKSPACE_BACKUP_BYTES`), without reading further. Throws when the workspace is missing
 * or not a real directory, or when `/proc` is unavailable.
 */
export async function createWorkspaceArchive(workspaceDir: string, options: { maxBytes?: number } = {}): Promise<WorkspaceArchiveResult> {
  const maxBytes = options.maxBytes ?? MAX_WORKSPACE_BACKUP_BYTES;
  const seen = await lstat(workspaceDir, { bigint: true });
  if (!seen.isDirectory()) throw new InternalConfigurationError('The workspace path is not a directory (symlinks are never followed)');
  const root = await open(workspaceDir, DIRECTORY_FLAGS);
  try {
    if (!sameFile(seen, await root.stat({ bigint: true }))) throw new InternalConfigurationError('The workspace directory changed while opening it');
    const viaProc = await lstat(procPath(root), { bigint: true }).catch(() => null);
    if (!viaProc || !viaProc.isSymbolicLink()) throw new InternalConfigurationError('Workspace backups need /proc/self/fd (Linux)');

    const pack = tarStream.pack();
    const archive = collect(pack);
    const state: WalkState = { pack, remaining: maxBytes - 2 * BLOCK, files: [], skipped: { unsafeNames: 0, specialFiles: 0, unreadable: 0 } };
    try {
      await addDirectoryContents(state, root, '');
    } catch (error) {
      pack.destroy();
      archive.catch(() => undefined);
      if (error instanceof TooLarge) return { ok: false, reason: 'too_large' };
      throw error;
    }
    pack.finalize();
    const bytes = await archive;
    // The running estimate is an upper bound, so this only guards the estimate itself.
    if (bytes.byteLength > maxBytes) return { ok: false, reason: 'too_large' };
    return { ok: true, archive: bytes, files: state.files, skipped: state.skipped };
  } finally {
    await root.close();
  }
}

type Child = { name: string; info: BigIntStats; sortKey: Buffer };

async function addDirectoryContents(state: WalkState, dir: FileHandle, prefix: string): Promise<void> {
  const base = procPath(dir);
  const children: Child[] = [];
  for (const raw of await readdir(base, { encoding: 'buffer' })) {
    const name = decodeStrict(raw);
    if (name === null || !isSafePathSegment(name)) {
      state.skipped.unsafeNames++;
      continue;
    }
    const info = await skippable(state, lstat(`${base}/${name}`, { bigint: true }));
    if (!info) continue;
    children.push({ name, info, sortKey: Buffer.from(info.isDirectory() ? `${name}/` : name, 'utf8') });
  }
  children.sort((a, b) => Buffer.compare(a.sortKey, b.sortKey));

  for (const { name, info } of children) {
    const path = prefix === '' ? name : `${prefix}/${name}`;
    if (Buffer.byteLength(path, 'utf8') > MAX_PATH_BYTES) {
      state.skipped.unsafeNames++;
    } else if (info.isDirectory()) {
      await addDirectory(state, `${base}/${name}`, path, info);
    } else if (info.isFile()) {
      await addFile(state, `${base}/${name}`, path, info);
    } else if (info.isSymbolicLink()) {
      await addSymlink(state, `${base}/${name}`, path);
    } else {
      state.skipped.specialFiles++;
    }
  }
}

async function addDirectory(state: WalkState, source: string, path: string, seen: BigIntStats): Promise<void> {
  const dir = await skippable(state, open(source, DIRECTORY_FLAGS));
  if (!dir) return;
  try {
    if (!sameFile(seen, await dir.stat({ bigint: true }))) {
      state.skipped.unreadable++;
      return;
    }
    const name = `${path}/`;
    spend(state, headerCost(name));
    await addEntry(state.pack, { name, type: 'directory', mode: 0o755, mtime: EPOCH, uid: 0, gid: 0 });
    await addDirectoryContents(state, dir, path);
  } finally {
    await dir.close();
  }
}

async function addFile(state: WalkState, source: string, path: string, seen: BigIntStats): Promise<void> {
  const file = await skippable(state, open(source, FILE_FLAGS));
  if (!file) return;
  try {
    const opened = await file.stat({ bigint: true });
    if (!opened.isFile() || !sameFile(seen, opened)) {
      state.skipped.unreadable++;
      return;
    }
    const reserved = headerCost(path) + roundUpToBlock(Number(opened.size));
    spend(state, reserved);
    // The file may still grow: read no more than its size plus what the budget has left.
    const { bytes, sha256 } = await readAll(file, Number(opened.size) + state.remaining);
    state.remaining += reserved;
    spend(state, headerCost(path) + roundUpToBlock(bytes.byteLength));
    const mode = (opened.mode & 0o111n) === 0n ? 0o644 : 0o755;
    await addEntry(state.pack, { name: path, type: 'file', mode, mtime: EPOCH, uid: 0, gid: 0, size: bytes.byteLength }, bytes);
    state.files.push({ path, sizeBytes: bytes.byteLength, sha256 });
  } finally {
    await file.close();
  }
}

async function addSymlink(state: WalkState, source: string, path: string): Promise<void> {
  const raw = await skippable(state, readlink(source, { encoding: 'buffer' }));
  if (!raw) return;
  const target = decodeStrict(raw);
  if (target === null || target === '' || target.includes('\0')) {
    state.skipped.unsafeNames++;
    return;
  }
  spend(state, headerCost(path, target));
  await addEntry(state.pack, { name: path, type: 'symlink', linkname: target, mode: 0o777, mtime: EPOCH, uid: 0, gid: 0 });
}

async function readAll(file: FileHandle, limit: number): Promise<{ bytes: Buffer; sha256: string }> {
  const hash = createHash('sha256');
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const chunk = Buffer.allocUnsafe(READ_CHUNK);
    const { bytesRead } = await file.read(chunk, 0, READ_CHUNK, null);
    if (bytesRead === 0) break;
    total += bytesRead;
    if (total > limit) throw new TooLarge();
    const data = chunk.subarray(0, bytesRead);
    hash.update(data);
    chunks.push(data);
  }
  return { bytes: Buffer.concat(chunks, total), sha256: hash.digest('hex') };
}

function spend(state: WalkState, bytes: number): void {
  state.remaining -= bytes;
  if (state.remaining < 0) throw new TooLarge();
}

/**
 * Upper bound on the header blocks tar-stream writes for an entry: one ustar header, plus a pax
 * header and its records when a name is not ASCII or does not fit the ustar fields (assumed
 * whenever a name exceeds 100 bytes, though a prefix split may avoid it).
 */
function headerCost(name: string, linkname?: string): number {
  const nameBytes = Buffer.byteLength(name, 'utf8');
  const linkBytes = linkname === undefined ? 0 : Buffer.byteLength(linkname, 'utf8');
  const needsPax = nameBytes !== name.length || nameBytes > 100 || linkBytes > 100;
  if (!needsPax) return BLOCK;
  // Each record is "<len> path=<name>\n" with at most 5 length digits.
  const records = 5 + ' path=\n'.length + nameBytes + (linkname === undefined ? 0 : 5 + ' linkpath=\n'.length + linkBytes);
  return BLOCK + roundUpToBlock(records) + BLOCK;
}

function roundUpToBlock(size: number): number {
  return Math.ceil(size / BLOCK) * BLOCK;
}

function addEntry(pack: Pack, header: Partial<Header> & Pick<Header, 'name'>, data?: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = (error?: Error | null) => (error ? reject(error) : resolve());
    if (data) pack.entry(header, data, done);
    else pack.entry(header, done);
  });
}

function collect(pack: Pack): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    pack.on('data', (chunk: unknown) => {
      chunks.push(chunk as Buffer);
    });
    pack.on('end', () => resolve(Buffer.concat(chunks)));
    pack.on('error', reject);
  });
}

/** Resolves `name` inside an open directory without following anything above it (openat). */
function procPath(dir: FileHandle): string {
  return `/proc/self/fd/${dir.fd}`;
}

function sameFile(a: BigIntStats, b: BigIntStats): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}

function decodeStrict(raw: Buffer): string | null {
  try {
    return strictUtf8.decode(raw);
  } catch {
    return null;
  }
}

async function skippable<T>(state: WalkState, operation: Promise<T>): Promise<T | null> {
  try {
    return await operation;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === undefined || !SKIPPABLE_ERRORS.has(code)) throw error;
    state.skipped.unreadable++;
    return null;
  }
}
