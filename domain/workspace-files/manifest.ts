import * as v from 'valibot';

/**
 * The manifest of one workspace backup generation (spec 2 "Sessions, runs, files"): which run
 * produced it, the archive's length and SHA-256 (the integrity binding checked before any byte is
 * served) and the regular files the archive holds. The worker writes it next to the archive; the
 * API lists files from it and downloads only paths it names.
 *
 * Paths are workspace-relative, `/`-separated, compared bytewise (no Unicode normalization), and
 * obey one rule shared by the archive writer, the archive reader, the manifest and the download
 * route: see `isSafePathSegment`.
 */

export const MANIFEST_FORMAT_VERSION = 1;

/** Linux NAME_MAX and PATH_MAX, in UTF-8 bytes. */
export const MAX_PATH_SEGMENT_BYTES = 255;
export const MAX_PATH_BYTES = 4096;

export type WorkspaceManifestFile = { path: string; sizeBytes: number; sha256: string };

export type WorkspaceManifest = {
  formatVersion: 1;
  workspaceSessionId: string;
  runId: string;
  generation: number;
  createdAt: string;
  archive: { sizeBytes: number; sha256: string };
  files: WorkspaceManifestFile[];
};

// C0 controls, DEL and C1 controls (Unicode category Cc).
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * One path segment (a file or directory name) that every consumer can represent faithfully:
 * well-formed Unicode, not empty, not `.` or `..`, no `/`, `\`, NUL or other control character,
 * at most 255 UTF-8 bytes. The writer skips workspace entries whose names fail it, so every
 * archived path can be listed and downloaded.
 */
export function isSafePathSegment(segment: string): boolean {
  return (
    segment.length > 0 &&
    segment !== '.' &&
    segment !== '..' &&
    segment.isWellFormed() &&
    !segment.includes('/') &&
    !segment.includes('\\') &&
    !CONTROL.test(segment) &&
    Buffer.byteLength(segment, 'utf8') <= MAX_PATH_SEGMENT_BYTES
  );
}

/** A relative workspace path: safe segments joined by `/`, at most 4096 UTF-8 bytes in all. */
export function isWorkspaceFilePath(path: string): boolean {
  return Buffer.byteLength(path, 'utf8') <= MAX_PATH_BYTES && path.split('/').every(isSafePathSegment);
}

/** The manifest's file order, and the archive writer's: bytewise over UTF-8. */
export function comparePathsBytewise(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

const Sha256 = v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/, 'must be a lowercase hex SHA-256'));
const ByteCount = v.pipe(v.number(), v.safeInteger(), v.minValue(0));
const Uuid = v.pipe(v.string(), v.uuid());
// Only the exact `Date.prototype.toISOString` form, so a parsed manifest serializes back unchanged.
const Timestamp = v.pipe(
  v.string(),
  v.regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
  v.check((value) => !Number.isNaN(Date.parse(value)) && new Date(value).toISOString() === value, 'must be a valid UTC timestamp'),
);

const ManifestFile = v.strictObject({
  path: v.pipe(v.string(), v.check(isWorkspaceFilePath, 'must be a safe relative path')),
  sizeBytes: ByteCount,
  sha256: Sha256,
});

const ManifestSchema = v.pipe(
  v.strictObject({
    formatVersion: v.literal(MANIFEST_FORMAT_VERSION),
    workspaceSessionId: Uuid,
    runId: Uuid,
    generation: v.pipe(v.number(), v.safeInteger(), v.minValue(1)),
    createdAt: Timestamp,
    archive: v.strictObject({ sizeBytes: ByteCount, sha256: Sha256 }),
    files: v.array(ManifestFile),
  }),
  v.check((manifest) => filesAreConsistent(manifest.files, manifest.archive.sizeBytes), 'files must be unique, sorted and fit in the archive'),
);

/**
 * Files strictly ascending bytewise (so unique), no file standing where another file's parent
 * directory is, and the whole list fitting in the archive (each file takes at least a 512-byte
 * header plus its content).
 */
function filesAreConsistent(files: WorkspaceManifestFile[], archiveBytes: number): boolean {
  const paths = new Set<string>();
  let needed = 0;
  for (let index = 0; index < files.length; index++) {
    const file = files[index]!;
    const previous = files[index - 1];
    if (previous && comparePathsBytewise(previous.path, file.path) >= 0) return false;
    paths.add(file.path);
    needed += 512 + file.sizeBytes;
  }
  if (needed > archiveBytes) return false;
  for (const file of files) {
    for (let slash = file.path.indexOf('/'); slash !== -1; slash = file.path.indexOf('/', slash + 1)) {
      if (paths.has(file.path.slice(0, slash))) return false;
    }
  }
  return true;
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Parses a stored manifest: strict UTF-8 JSON, no unknown keys, every rule above. Returns null
 * for anything else; callers answer `409` (manifest invalid) and never guess.
 */
export function parseManifest(bytes: Uint8Array): WorkspaceManifest | null {
  let json: unknown;
  try {
    json = JSON.parse(utf8.decode(bytes));
  } catch {
    return null;
  }
  const result = v.safeParse(ManifestSchema, json);
  return result.success ? result.output : null;
}

/**
 * Canonical bytes of a manifest: UTF-8 JSON with keys sorted at every level and no whitespace
 * (RFC 8785 for a document of strings and integers), so equal manifests have equal bytes and
 * hashes. A manifest `parseManifest` would refuse (an unknown key included) throws: the worker
 * never stores one the API cannot read.
 */
export function serializeManifest(manifest: WorkspaceManifest): Buffer {
  const result = v.safeParse(ManifestSchema, manifest, { abortEarly: true });
  if (!result.success) {
    const issue = result.issues[0];
    const where = issue.path?.map((item) => String(item.key)).join('.') ?? '(manifest)';
    throw new Error(`Invalid workspace manifest at ${where}: ${issue.message}`);
  }
  return Buffer.from(canonicalJson(result.output), 'utf8');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
