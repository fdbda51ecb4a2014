import { createHash } from 'node:crypto';
import tarStream, { type Header } from 'tar-stream';
import { describe, expect, it } from 'vitest';
import { extractArchiveFile, normalizeRequestPath, verifyArchiveBytes } from './archive-reader.ts';
import { parseManifest, serializeManifest, type WorkspaceManifest } from '../../../domain/workspace-files/manifest.ts';

type TarEntry = { header: Partial<Header> & Pick<Header, 'name'>; data?: string };

const sha256 = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest('hex');
const fileRef = (path: string, data: string) => ({ path, sizeBytes: Buffer.byteLength(data), sha256: sha256(data) });
const file = (name: string, data: string): TarEntry => ({ header: { name, type: 'file', mtime: new Date(0) }, data });
const dir = (name: string): TarEntry => ({ header: { name, type: 'directory', mtime: new Date(0) } });

/** Builds a tar with tar-stream itself, so malformed-but-parseable archives are easy to make. */
async function buildTar(entries: TarEntry[]): Promise<Buffer> {
  const pack = tarStream.pack();
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    pack.on('data', (chunk: unknown) => {
      chunks.push(chunk as Buffer);
    });
    pack.on('end', () => resolve(Buffer.concat(chunks)));
    pack.on('error', reject);
  });
  for (const entry of entries) {
    await new Promise<void>((resolve, reject) => {
      const callback = (error?: Error | null) => (error ? reject(error) : resolve());
      if (entry.data === undefined) pack.entry(entry.header, callback);
      else pack.entry(entry.header, Buffer.from(entry.data), callback);
    });
  }
  pack.finalize();
  return done;
}

const README = 'hello\n';
const NOTE = 'x'.repeat(700); // spans two data blocks

async function sampleTar(): Promise<Buffer> {
  return buildTar([
    dir('notes/'),
    file('notes/a.md', NOTE),
    { header: { name: 'notes/link', type: 'symlink', linkname: '/etc/passwd', mtime: new Date(0) } },
    file('readme.txt', README),
  ]);
}

describe('verifyArchiveBytes', () => {
  it('accepts matching length and hash, then reports length before hash', async () => {
    const archive = await sampleTar();
    const expected = { sizeBytes: archive.byteLength, sha256: sha256(archive) };
    expect(verifyArchiveBytes(archive, expected)).toBeNull();

    const flipped = Buffer.from(archive);
    flipped[600] = flipped[600]! ^ 0xff;
    expect(verifyArchiveBytes(flipped, expected)).toBe('hash_mismatch');
    expect(verifyArchiveBytes(archive.subarray(0, archive.byteLength - 512), expected)).toBe('length_mismatch');
    expect(verifyArchiveBytes(archive, { ...expected, sha256: sha256('other') })).toBe('hash_mismatch');
  });
});

describe('extractArchiveFile', () => {
  it('returns exactly the requested regular file', async () => {
    const archive = await sampleTar();
    expect(await extractArchiveFile(archive, fileRef('notes/a.md', NOTE))).toEqual({ ok: true, bytes: Buffer.from(NOTE) });
    expect(await extractArchiveFile(archive, fileRef('readme.txt', README))).toEqual({ ok: true, bytes: Buffer.from(README) });
  });

  it('reads long and non-ASCII names stored in pax headers', async () => {
    const longName = `${'d'.repeat(120)}/ünïcødé-${'f'.repeat(150)}.txt`;
    const archive = await buildTar([dir(`${'d'.repeat(120)}/`), file(longName, 'long')]);
    expect(await extractArchiveFile(archive, fileRef(longName, 'long'))).toEqual({ ok: true, bytes: Buffer.from('long') });
  });

  it('refuses entries that are not regular files', async () => {
    const archive = await buildTar([
      dir('d/'),
      { header: { name: 'sym', type: 'symlink', linkname: 'd' } },
      { header: { name: 'hard', type: 'link', linkname: 'd' } },
      { header: { name: 'fifo', type: 'fifo' } },
      { header: { name: 'tty', type: 'character-device', devmajor: 5, devminor: 0 } },
      { header: { name: 'disk', type: 'block-device', devmajor: 8, devminor: 0 } },
    ]);
    for (const path of ['d', 'sym', 'hard', 'fifo', 'tty', 'disk']) {
      expect(await extractArchiveFile(archive, { path, sizeBytes: 0, sha256: sha256('') })).toEqual({ ok: false, problem: 'not_a_regular_file' });
    }
  });

  it('reports a manifest entry the archive lacks, a wrong size and a wrong hash', async () => {
    const archive = await sampleTar();
    expect(await extractArchiveFile(archive, fileRef('absent.txt', ''))).toEqual({ ok: false, problem: 'missing_entry' });
    expect(await extractArchiveFile(archive, { ...fileRef('readme.txt', README), sizeBytes: 5 })).toEqual({ ok: false, problem: 'size_mismatch' });
    expect(await extractArchiveFile(archive, { ...fileRef('readme.txt', README), sha256: sha256('nope') })).toEqual({
      ok: false,
      problem: 'entry_hash_mismatch',
    });
  });

  it('refuses truncated archives, even when their length and hash were recorded that way', async () => {
    const archive = await sampleTar();
    const readme = fileRef('readme.txt', README);
    // Cut inside notes/a.md's data, at a block boundary and at a byte boundary.
    for (const cut of [1024, 1100, archive.byteLength - 1, archive.byteLength - 1024, archive.byteLength - 512]) {
      const truncated = archive.subarray(0, cut);
      expect(verifyArchiveBytes(truncated, { sizeBytes: truncated.byteLength, sha256: sha256(truncated) })).toBeNull();
      expect(await extractArchiveFile(truncated, readme)).toEqual({ ok: false, problem: 'invalid_tar' });
    }
  });

  it('refuses corrupt headers, garbage and an empty buffer', async () => {
    const archive = await sampleTar();
    const corrupt = Buffer.from(archive);
    corrupt[0] = corrupt[0]! ^ 0x01; // breaks the first header's checksum
    const readme = fileRef('readme.txt', README);
    expect(await extractArchiveFile(corrupt, readme)).toEqual({ ok: false, problem: 'invalid_tar' });
    expect(await extractArchiveFile(Buffer.alloc(2048, 0x41), readme)).toEqual({ ok: false, problem: 'invalid_tar' });
    expect(await extractArchiveFile(Buffer.alloc(0), readme)).toEqual({ ok: false, problem: 'invalid_tar' });
    expect(await extractArchiveFile(Buffer.concat([archive, Buffer.alloc(100)]), readme)).toEqual({ ok: false, problem: 'invalid_tar' });
  });

  it('refuses data after the end marker and zero blocks between entries', async () => {
    const first = await buildTar([file('a.txt', 'a')]);
    const second = await buildTar([file('b.txt', 'b')]);
    const concatenated = Buffer.concat([first, second]); // a zero-block end, then another entry
    expect(await extractArchiveFile(concatenated, fileRef('a.txt', 'a'))).toEqual({ ok: false, problem: 'invalid_tar' });
    const trailing = Buffer.concat([first, second.subarray(0, 1024)]);
    expect(await extractArchiveFile(trailing, fileRef('a.txt', 'a'))).toEqual({ ok: false, problem: 'invalid_tar' });
    // Extra zero padding at the very end is fine (GNU tar pads to 10 KiB records).
    expect(await extractArchiveFile(Buffer.concat([first, Buffer.alloc(8192)]), fileRef('a.txt', 'a'))).toEqual({ ok: true, bytes: Buffer.from('a') });
  });

  it.each([
    ['a parent-directory segment', [file('../evil', 'x')]],
    ['a nested parent-directory segment', [dir('a/'), file('a/../evil', 'x')]],
    ['an absolute path', [file('/etc/evil', 'x')]],
    ['a leading ./', [file('./a', 'x')]],
    ['an empty segment', [dir('a/'), file('a//b', 'x')]],
    ['a backslash', [file('a\\b', 'x')]],
    ['a control character', [file('a\u0001b', 'x')]],
    ['duplicate files', [file('a', 'x'), file('a', 'y')]],
    ['a file and a directory at one path', [dir('a/'), file('a', 'x')]],
    ['a file under a symlink', [{ header: { name: 'link', type: 'symlink', linkname: '/etc' } }, file('link/passwd', 'x')]],
    ['a file under a file', [file('a', 'x'), file('a/b', 'y')]],
    ['a file whose directory has no entry', [file('nodir/b', 'y')]],
  ] satisfies Array<[string, TarEntry[]]>)('refuses an archive with %s', async (_label, entries) => {
    const archive = await buildTar([...entries, file('ok.txt', 'fine')]);
    expect(await extractArchiveFile(archive, fileRef('ok.txt', 'fine'))).toEqual({ ok: false, problem: 'invalid_tar' });
  });
});

describe('normalizeRequestPath', () => {
  it.each([
    [['a.txt'], 'a.txt'],
    [['notes', 'deep', 'b.md'], 'notes/deep/b.md'],
    [['café-名前.txt'], 'café-名前.txt'],
    [['.hidden', '...', 'a b', '%41'], '.hidden/.../a b/%41'],
    [['é'.repeat(127)], 'é'.repeat(127)], // 254 bytes
  ])('accepts %j', (segments, path) => {
    expect(normalizeRequestPath(segments)).toEqual({ ok: true, path });
  });

  it.each([
    ['no segments', []],
    ['an empty segment', ['a', '', 'b']],
    ['.', ['a', '.']],
    ['..', ['..', 'etc', 'passwd']],
    ['a slash inside a segment (%2F)', ['a/b']],
    ['a backslash', ['a\\b']],
    ['NUL', ['a\u0000']],
    ['a C0 control', ['a\nb']],
    ['DEL', ['a\u007f']],
    ['a C1 control', ['a\u0085']],
    ['a lone surrogate', ['a\ud800']],
    ['a segment over 255 bytes', ['é'.repeat(128)]],
    ['a path over 4096 bytes', Array.from({ length: 17 }, () => 'x'.repeat(255))],
  ])('refuses %s', (_label, segments) => {
    expect(normalizeRequestPath(segments)).toEqual({ ok: false });
  });

  it('accepts a path of exactly 4096 bytes and no more', () => {
    const segments = Array.from({ length: 17 }, () => 'x'.repeat(240)); // 17 * 240 + 16 slashes
    expect(normalizeRequestPath(segments)).toEqual({ ok: true, path: segments.join('/') });
    expect(normalizeRequestPath([...segments.slice(1), 'x'.repeat(241)])).toEqual({ ok: false });
  });
});

describe('workspace manifest', () => {
  const manifest: WorkspaceManifest = {
    formatVersion: 1,
    workspaceSessionId: '0b9f6a0e-3f63-4a8e-9d55-2f0c7c1e2d3a',
    runId: '7e1f5d2c-8a4b-4c6d-9e0f-1a2b3c4d5e6f',
    generation: 3,
    createdAt: '2025-01-02T03:04:05.678Z',
    archive: { sizeBytes: 10240, sha256: sha256('archive') },
    files: [
      { path: 'a-b', sizeBytes: 2, sha256: sha256('y\n') },
      { path: 'café.txt', sizeBytes: 0, sha256: sha256('') },
      { path: 'notes/a.md', sizeBytes: 6, sha256: sha256('hello\n') },
    ],
  };
  const bytesOf = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8');

  it('round-trips through canonical bytes', () => {
    const bytes = serializeManifest(manifest);
    expect(parseManifest(bytes)).toEqual(manifest);
    const text = bytes.toString('utf8');
    expect(text).toBe(
      `{"archive":{"sha256":"${manifest.archive.sha256}","sizeBytes":10240},"createdAt":"2025-01-02T03:04:05.678Z",` +
        `"files":[${manifest.files.map((f) => `{"path":"${f.path}","sha256":"${f.sha256}","sizeBytes":${f.sizeBytes}}`).join(',')}],` +
        `"formatVersion":1,"generation":3,"runId":"${manifest.runId}","workspaceSessionId":"${manifest.workspaceSessionId}"}`,
    );
    // Key order in the input does not matter.
    const reordered = {
      files: manifest.files,
      archive: manifest.archive,
      runId: manifest.runId,
      generation: 3,
      createdAt: manifest.createdAt,
      workspaceSessionId: manifest.workspaceSessionId,
      formatVersion: 1 as const,
    };
    expect(serializeManifest(reordered).equals(bytes)).toBe(true);
    // Pretty-printed JSON with the same content parses too.
    expect(parseManifest(Buffer.from(JSON.stringify(manifest, null, 2)))).toEqual(manifest);
  });

  it.each([
    ['an unknown key', { ...manifest, extra: true }],
    ['an unknown file key', { ...manifest, files: [{ ...manifest.files[0], mode: 420 }] }],
    ['a missing key', { ...manifest, runId: undefined }],
    ['another format version', { ...manifest, formatVersion: 2 }],
    ['a non-UUID session id', { ...manifest, workspaceSessionId: 'session-1' }],
    ['generation 0', { ...manifest, generation: 0 }],
    ['a fractional generation', { ...manifest, generation: 1.5 }],
    ['a generation given as a string', { ...manifest, generation: '3' }],
    ['a non-canonical timestamp', { ...manifest, createdAt: '2025-01-02T03:04:05Z' }],
    ['an impossible date', { ...manifest, createdAt: '2025-02-30T03:04:05.678Z' }],
    ['an uppercase hash', { ...manifest, archive: { ...manifest.archive, sha256: manifest.archive.sha256.toUpperCase() } }],
    ['a short hash', { ...manifest, archive: { ...manifest.archive, sha256: 'abc' } }],
    ['a negative size', { ...manifest, files: [{ ...manifest.files[0], sizeBytes: -1 }] }],
    ['files larger than the archive', { ...manifest, archive: { ...manifest.archive, sizeBytes: 1000 } }],
    ['unsorted files', { ...manifest, files: [manifest.files[1], manifest.files[0]] }],
    ['duplicate files', { ...manifest, files: [manifest.files[0], manifest.files[0]] }],
    ['a file where a directory must be', { ...manifest, files: [{ ...manifest.files[2]!, path: 'notes' }, manifest.files[2]] }],
    ['a parent-directory path', { ...manifest, files: [{ ...manifest.files[0], path: '../etc/passwd' }] }],
    ['an absolute path', { ...manifest, files: [{ ...manifest.files[0], path: '/etc/passwd' }] }],
    ['an empty path segment', { ...manifest, files: [{ ...manifest.files[0], path: 'a//b' }] }],
    ['a control character in a path', { ...manifest, files: [{ ...manifest.files[0], path: 'a\nb' }] }],
    ['files that are not an array', { ...manifest, files: {} }],
  ])('rejects %s', (_label, value) => {
    expect(parseManifest(bytesOf(value))).toBeNull();
    expect(() => serializeManifest(value as WorkspaceManifest)).toThrow(/Invalid workspace manifest/);
  });

  it('rejects bytes that are not strict UTF-8 JSON', () => {
    const good = serializeManifest(manifest);
    expect(parseManifest(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), good]))).toBeNull(); // BOM
    expect(parseManifest(Buffer.from([0x7b, 0xff, 0x7d]))).toBeNull();
    expect(parseManifest(good.subarray(0, good.byteLength - 1))).toBeNull();
    expect(parseManifest(Buffer.from('null'))).toBeNull();
    expect(parseManifest(Buffer.alloc(0))).toBeNull();
  });
});
