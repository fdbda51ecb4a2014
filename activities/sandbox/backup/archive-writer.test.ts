import { execFileSync } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tarStream, { type Header } from 'tar-stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InternalConfigurationError } from '../../../domain/errors.ts';
import { extractArchiveFile, verifyArchiveBytes } from '../../../services/runtime/workspace-files/index.ts';
import { parseManifest, serializeManifest } from '../../../domain/workspace-files/manifest.ts';
import { createWorkspaceArchive, MAX_WORKSPACE_BACKUP_BYTES } from './archive-writer.ts';

const sha256 = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest('hex');
const bytewise = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

const LONG_NAME = `long/${'n'.repeat(200)}-ü.txt`;
const SECRET = `outside-secret-${randomUUID()}`;

/** Regular files of the fixture, by path, with their contents. */
const FILES: Record<string, string | Buffer> = {
  'a-b': 'y\n',
  'café-名前.txt': 'unicode\n',
  empty: '',
  [LONG_NAME]: 'long\n',
  'notes/a.md': '# notes\n'.repeat(100),
  'notes/deep/b.txt': Buffer.from([0, 1, 2, 255, 254]),
  'run.sh': '#!/bin/sh\necho hi\n',
};

let root: string;
let workspace: string;
let socketServer: Server;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'archive-writer-'));
  workspace = join(root, 'workspace');
  const outside = join(root, 'outside');
  mkdirSync(outside);
  writeFileSync(join(outside, 'secret.txt'), SECRET);

  for (const dir of ['notes/deep', 'long', 'empty-dir', 'bad\\dir']) mkdirSync(join(workspace, dir), { recursive: true });
  for (const [path, data] of Object.entries(FILES)) writeFileSync(join(workspace, path), data);
  chmodSync(join(workspace, 'run.sh'), 0o755);
  writeFileSync(join(workspace, 'bad\\dir', 'hidden.txt'), 'skipped with its directory');
  writeFileSync(join(workspace, 'ctl\u0001name'), 'x');
  writeFileSync(Buffer.concat([Buffer.from(`${workspace}/latin1-`), Buffer.from([0xe9])]), 'x');

  symlinkSync('/etc/passwd', join(workspace, 'passwd-link'));
  symlinkSync(outside, join(workspace, 'outside-link'));
  symlinkSync('a.md', join(workspace, 'notes', 'rel-link'));
  execFileSync('mkfifo', [join(workspace, 'fifo')]);
  socketServer = createServer();
  await new Promise<void>((resolve) => socketServer.listen(join(workspace, 'socket'), resolve));
});

afterAll(async () => {
  await new Promise<void>((resolve) => socketServer.close(() => resolve()));
  rmSync(root, { recursive: true, force: true });
});

type Listed = { name: string; type: Header['type']; mode: number; mtime: number; size: number; linkname: string | null };

async function listTar(archive: Buffer): Promise<Listed[]> {
  const listed: Listed[] = [];
  const extract = tarStream.extract();
  const iterator = extract[Symbol.asyncIterator]();
  extract.end(archive);
  for await (const entry of { [Symbol.asyncIterator]: () => iterator }) {
    const { name, type, mode, mtime, size, linkname } = entry.header;
    listed.push({ name, type, mode, mtime: mtime.getTime(), size, linkname: linkname ?? null });
    entry.resume();
  }
  return listed;
}

async function archiveOf(dir: string, maxBytes?: number) {
  const result = await createWorkspaceArchive(dir, maxBytes === undefined ? {} : { maxBytes });
  if (!result.ok) throw new Error(`expected an archive, got ${result.reason}`);
  return result;
}

describe('createWorkspaceArchive', () => {
  it('lists regular files only, sorted bytewise, with sizes and hashes, and reports what it skipped', async () => {
    const result = await archiveOf(workspace);
    const expected = Object.entries(FILES)
      .map(([path, data]) => ({ path, sizeBytes: Buffer.byteLength(data), sha256: sha256(data) }))
      .sort((a, b) => bytewise(a.path, b.path));
    expect(result.files).toEqual(expected);
    expect(result.skipped).toEqual({ unsafeNames: 3, specialFiles: 2, unreadable: 0 });
  });

  it('writes relative, ordered entries with normalized modes, zero mtimes and unfollowed symlinks', async () => {
    const { archive } = await archiveOf(workspace);
    const listed = await listTar(archive);
    expect(listed.map((entry) => entry.name)).toEqual([
      'a-b',
      'café-名前.txt',
      'empty',
      'empty-dir/',
      'long/',
      LONG_NAME,
      'notes/',
      'notes/a.md',
      'notes/deep/',
      'notes/deep/b.txt',
      'notes/rel-link',
      'outside-link',
      'passwd-link',
      'run.sh',
    ]);
    expect(listed.every((entry) => entry.mtime === 0)).toBe(true);
    const byName = new Map(listed.map((entry) => [entry.name, entry]));
    expect(byName.get('run.sh')).toMatchObject({ type: 'file', mode: 0o755 });
    expect(byName.get('notes/a.md')).toMatchObject({ type: 'file', mode: 0o644 });
    expect(byName.get('notes/')).toMatchObject({ type: 'directory', mode: 0o755, size: 0 });
    expect(byName.get('passwd-link')).toMatchObject({ type: 'symlink', linkname: '/etc/passwd', size: 0 });
    expect(byName.get('outside-link')).toMatchObject({ type: 'symlink', linkname: join(root, 'outside'), size: 0 });
    expect(byName.get('notes/rel-link')).toMatchObject({ type: 'symlink', linkname: 'a.md' });
    // Symlink targets' contents never enter the archive.
    expect(archive.includes(readFileSync('/etc/passwd'))).toBe(false);
    expect(archive.includes(Buffer.from(SECRET))).toBe(false);
    expect(archive.includes(Buffer.from('skipped with its directory'))).toBe(false);
  });

  it('round-trips through the API-side reader and a manifest', async () => {
    const { archive, files } = await archiveOf(workspace);
    const binding = { sizeBytes: archive.byteLength, sha256: sha256(archive) };
    expect(verifyArchiveBytes(archive, binding)).toBeNull();
    for (const file of files) {
      const extracted = await extractArchiveFile(archive, file);
      expect(extracted).toEqual({ ok: true, bytes: Buffer.from(FILES[file.path]!) });
    }
    for (const path of ['passwd-link', 'outside-link', 'notes/rel-link', 'notes', 'empty-dir']) {
      expect(await extractArchiveFile(archive, { path, sizeBytes: 0, sha256: sha256('') })).toEqual({ ok: false, problem: 'not_a_regular_file' });
    }
    expect(await extractArchiveFile(archive, { path: 'outside-link/secret.txt', sizeBytes: SECRET.length, sha256: sha256(SECRET) })).toEqual({
      ok: false,
      problem: 'missing_entry',
    });
    expect(await extractArchiveFile(archive, { path: 'fifo', sizeBytes: 0, sha256: sha256('') })).toEqual({ ok: false, problem: 'missing_entry' });

    const manifest = {
      formatVersion: 1 as const,
      workspaceSessionId: randomUUID(),
      runId: randomUUID(),
      generation: 1,
      createdAt: new Date().toISOString(),
      archive: binding,
      files,
    };
    expect(parseManifest(serializeManifest(manifest))).toEqual(manifest);
  });

  it('is deterministic: the same tree gives the same bytes whatever the mtimes and permission bits', async () => {
    const first = await archiveOf(workspace);
    utimesSync(join(workspace, 'notes', 'a.md'), new Date('2001-01-01'), new Date('2001-01-01'));
    chmodSync(join(workspace, 'empty'), 0o600);
    const second = await archiveOf(workspace);
    expect(second.archive.equals(first.archive)).toBe(true);
    expect(second.files).toEqual(first.files);
  });

  it('refuses a workspace over the size limit, counting headers and padding', async () => {
    const small = mkdtempSync(join(root, 'small-'));
    mkdirSync(join(small, 'd'));
    writeFileSync(join(small, 'd', 'f.txt'), 'z'.repeat(1000));
    symlinkSync('d/f.txt', join(small, 'l'));
    const { archive } = await archiveOf(small);
    // dir header + file header + 2 data blocks + symlink header + end marker
    expect(archive.byteLength).toBe(512 + 512 + 1024 + 512 + 1024);
    expect((await createWorkspaceArchive(small, { maxBytes: archive.byteLength })).ok).toBe(true);
    expect(await createWorkspaceArchive(small, { maxBytes: archive.byteLength - 1 })).toEqual({ ok: false, reason: 'too_large' });
    expect(await createWorkspaceArchive(small, { maxBytes: 0 })).toEqual({ ok: false, reason: 'too_large' });
    expect(MAX_WORKSPACE_BACKUP_BYTES).toBe(256 * 1024 * 1024);
  });

  it('archives an empty workspace as just the end marker', async () => {
    const empty = mkdtempSync(join(root, 'empty-'));
    const result = await archiveOf(empty);
    expect(result.files).toEqual([]);
    expect(result.archive.equals(Buffer.alloc(1024))).toBe(true);
  });

  it('refuses a workspace path that is a symlink or not a directory', async () => {
    const link = join(root, 'workspace-link');
    symlinkSync(workspace, link);
    await expect(createWorkspaceArchive(link)).rejects.toBeInstanceOf(InternalConfigurationError);
    await expect(createWorkspaceArchive(join(workspace, 'run.sh'))).rejects.toBeInstanceOf(InternalConfigurationError);
    await expect(createWorkspaceArchive(join(root, 'missing'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
