import { createHash } from 'node:crypto';
import tarStream, { type Extract, type Header } from 'tar-stream';
import { isSafePathSegment, isWorkspaceFilePath, MAX_PATH_BYTES } from '../../../domain/workspace-files/manifest.ts';

/**
 * Reading a workspace backup archive on the API side (spec 2 "Sessions, runs, files",
 * download). The caller resolves the requested path against the verified manifest first (a
 * path the manifest does not list is a `404`), checks the archive bytes with
 * `verifyArchiveBytes`, then calls `extractArchiveFile`; any problem is a `409` and no byte is
 * sent.
 *
 * The archive format (version 1, written by `activities/sandbox/backup/archive-writer.ts`) is a
 * POSIX ustar/pax tar: relative paths, directories before their contents, every entry's parent
 * a directory entry, regular files, directories and symlinks only, two or more zero blocks at
 * the end and none before. The reader refuses anything else as `invalid_tar` rather than
 * guessing, so no two tar readers can disagree about what an accepted archive holds.
 */

export type ArchiveProblem =
  | 'length_mismatch'
  | 'hash_mismatch'
  | 'invalid_tar'
  /** The manifest names the path but the archive has no entry for it: archive and manifest disagree. */
  | 'missing_entry'
  | 'not_a_regular_file'
  | 'size_mismatch'
  | 'entry_hash_mismatch';

export type ArchiveEntryRef = { path: string; sizeBytes: number; sha256: string };

const BLOCK = 512;
const ZERO_BLOCK = Buffer.alloc(BLOCK);

/** Checks the archive's length, then its SHA-256, against the manifest's integrity binding. */
export function verifyArchiveBytes(archive: Uint8Array, expected: { sizeBytes: number; sha256: string }): ArchiveProblem | null {
  if (archive.byteLength !== expected.sizeBytes) return 'length_mismatch';
  const actual = createHash('sha256').update(archive).digest('hex');
  return actual === expected.sha256 ? null : 'hash_mismatch';
}

/**
 * Parses the whole archive and returns the bytes of one regular file, checked against its
 * manifest entry. Only that entry's bytes are held (and only when its size matches); every other
 * entry is drained. Call `verifyArchiveBytes` first: this function checks the tar, not the
 * archive's binding to the manifest.
 */
export async function extractArchiveFile(
  archive: Uint8Array,
  manifestEntry: ArchiveEntryRef,
): Promise<{ ok: true; bytes: Buffer } | { ok: false; problem: ArchiveProblem }> {
  const scan = await scanArchive(archive, manifestEntry);
  if (!scan.ok) return { ok: false, problem: 'invalid_tar' };
  const found = scan.found;
  if (!found) return { ok: false, problem: 'missing_entry' };
  if (found.type !== 'file') return { ok: false, problem: 'not_a_regular_file' };
  if (found.size !== manifestEntry.sizeBytes || !found.bytes) return { ok: false, problem: 'size_mismatch' };
  if (found.sha256 !== manifestEntry.sha256) return { ok: false, problem: 'entry_hash_mismatch' };
  return { ok: true, bytes: found.bytes };
}

/**
 * The download route's `{path}`: its segments, each percent-decoded on its own (so `%2F` never
 * splits a segment). Refuses no segments, empty, `.` or `..` segments, NUL and other control
 * characters, `/` or `\` inside a segment, ill-formed Unicode, a segment over 255 UTF-8 bytes
 * and a path over 4096; joins the rest with `/`. A refusal is a `400`. No Unicode normalization:
 * paths match the manifest bytewise.
 */
export function normalizeRequestPath(rawSegments: string[]): { ok: true; path: string } | { ok: false } {
  if (rawSegments.length === 0) return { ok: false };
  for (const segment of rawSegments) {
    if (typeof segment !== 'string' || !isSafePathSegment(segment)) return { ok: false };
  }
  const path = rawSegments.join('/');
  return Buffer.byteLength(path, 'utf8') <= MAX_PATH_BYTES ? { ok: true, path } : { ok: false };
}

type EntryType = Header['type'];
type Entry = Extract extends AsyncIterable<infer Source> ? Source : never;
type Found = { type: EntryType; size: number; bytes: Buffer | null; sha256: string | null };

// Entry kinds an archive may hold; only regular files carry data.
const ALLOWED_TYPES = new Set<EntryType>(['file', 'directory', 'symlink', 'link', 'character-device', 'block-device', 'fifo', 'contiguous-file']);
const DATA_TYPES = new Set<EntryType>(['file', 'contiguous-file']);

async function scanArchive(archive: Uint8Array, wanted: ArchiveEntryRef): Promise<{ ok: true; found: Found | null } | { ok: false }> {
  const bytes = Buffer.from(archive.buffer, archive.byteOffset, archive.byteLength);
  if (bytes.byteLength % BLOCK !== 0) return { ok: false };

  const extract = tarStream.extract();
  // Listen before writing: tar-stream may emit the first entry during the write itself.
  const iterator = extract[Symbol.asyncIterator]();
  const entries: AsyncIterable<Entry> = { [Symbol.asyncIterator]: () => iterator };
  extract.end(bytes);

  const types = new Map<string, EntryType>();
  let found: Found | null = null;
  let dataEnd = 0; // where the previous entry's padded data ends
  try {
    for await (const entry of entries) {
      const { header } = entry;
      // Unknown typeflags arrive as null, whatever the typings say.
      const type: EntryType | null = header.type ?? null;
      const size = header.size;
      if (type === null || !ALLOWED_TYPES.has(type) || !Number.isSafeInteger(size) || size < 0 || (size !== 0 && !DATA_TYPES.has(type))) return { ok: false };

      // Only pax or GNU long-name blocks may sit between two entries; a zero block there would
      // end the archive for most other readers.
      const { headerStart, dataStart } = entryOffsets(entry);
      if (headerStart < dataEnd || containsZeroBlock(bytes, dataEnd, headerStart)) return { ok: false };
      dataEnd = dataStart + roundUpToBlock(size);

      const path = entryPath(header.name, type);
      if (path === null || types.has(path)) return { ok: false };
      const slash = path.lastIndexOf('/');
      // A parent that is a symlink (or missing) would let a restore write outside the workspace.
      if (slash !== -1 && types.get(path.slice(0, slash)) !== 'directory') return { ok: false };
      types.set(path, type);

      if (path === wanted.path) {
        found = { type, size, bytes: null, sha256: null };
        if (type === 'file' && size === wanted.sizeBytes) {
          const hash = createHash('sha256');
          const chunks: Buffer[] = [];
          for await (const chunk of entry as AsyncIterable<Buffer>) {
            hash.update(chunk);
            chunks.push(chunk);
          }
          found.bytes = Buffer.concat(chunks);
          found.sha256 = hash.digest('hex');
          continue;
        }
      }
      entry.resume();
    }
  } catch (error) {
    if (error instanceof TarStreamContractError) throw error;
    // Bad checksum, unknown format, truncated data: tar-stream's errors all mean the same here.
    return { ok: false };
  }

  // Truncation at an entry boundary parses cleanly; the end-of-archive marker proves it whole.
  if (bytes.byteLength - dataEnd < 2 * BLOCK || !isAllZero(bytes, dataEnd, bytes.byteLength)) return { ok: false };
  return { ok: true, found };
}

/** Directory names carry one trailing `/`; everything else must be a safe relative path. */
function entryPath(name: string, type: EntryType): string | null {
  const path = type === 'directory' && name.endsWith('/') ? name.slice(0, -1) : name;
  return isWorkspaceFilePath(path) ? path : null;
}

/**
 * tar-stream (pinned) keeps each entry's header offset on the entry stream and its data offset
 * on the header; the latter is not in its typings. Fail loudly if an upgrade drops them.
 */
function entryOffsets(entry: Entry): { headerStart: number; dataStart: number } {
  const headerStart: unknown = entry.offset;
  const dataStart: unknown = (entry.header as unknown as { byteOffset?: unknown }).byteOffset;
  if (typeof headerStart !== 'number' || typeof dataStart !== 'number') {
    throw new TarStreamContractError('tar-stream no longer reports entry offsets; archive-reader needs updating');
  }
  return { headerStart, dataStart };
}

class TarStreamContractError extends Error {}

function roundUpToBlock(size: number): number {
  return Math.ceil(size / BLOCK) * BLOCK;
}

// Both bounds are block-aligned: headers and data start on 512-byte boundaries.
function containsZeroBlock(bytes: Buffer, from: number, to: number): boolean {
  for (let at = from; at + BLOCK <= to; at += BLOCK) {
    if (ZERO_BLOCK.equals(bytes.subarray(at, at + BLOCK))) return true;
  }
  return false;
}

function isAllZero(bytes: Buffer, from: number, to: number): boolean {
  for (let at = from; at < to; at += BLOCK) {
    if (!ZERO_BLOCK.equals(bytes.subarray(at, at + BLOCK))) return false;
  }
  return true;
}
