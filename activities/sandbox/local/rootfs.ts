import { lstat, readdir, readlink } from 'node:fs/promises';
import * as path from 'node:path';
import { InternalConfigurationError } from '../../../domain/errors.ts';
import type { SnapshotForExec } from './snapshots.ts';

/**
 * bwrap arguments that lay a snapshot's root filesystem, read-only, over bwrap's empty root.
 * Top-level entries are mounted one by one (symlinks recreated as symlinks) rather than the whole
 * root at `/`, so `/workspace`, `/tmp`, `/run`, `/proc` and `/dev` can be added on top.
 *
 * `host-usr` shows the host's `/usr` and its merged-usr links, plus a short list of harmless,
 * secret-free `/etc` entries programs need; the host's `/etc` as a whole never appears. The
 * generated `/etc/passwd`, `group` and `hosts` are written by the caller (`generatedEtc`).
 */
export type RootfsMounts = { args: string[]; generatedEtc: string[] };

const HOST_USR_LINKS = ['bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32'];

// Read by common programs; none holds credentials or host identity.
const HOST_ETC_ALLOWLIST = [
  'alternatives',
  'ssl/certs',
  'ca-certificates.conf',
  'ld.so.cache',
  'ld.so.conf',
  'ld.so.conf.d',
  'fonts',
  'chromium',
  'chromium.d',
];

// Supplied fresh by the sandbox, never taken from a directory root.
// /mnt holds the memory store mounts (/mnt/memory/<store>).
const SANDBOX_OWNED = new Set(['proc', 'dev', 'sys', 'tmp', 'run', 'workspace', 'lost+found', 'mnt']);

export const GENERATED_ETC = ['passwd', 'group', 'hosts'];

export async function rootfsMounts(snapshot: SnapshotForExec): Promise<RootfsMounts> {
  if (snapshot.rootfs.kind === 'host-usr') {
    const args = ['--ro-bind', '/usr', '/usr'];
    for (const name of HOST_USR_LINKS) args.push(...(await mirrorEntry('/', name)));
    for (const entry of HOST_ETC_ALLOWLIST) args.push('--ro-bind-try', `/etc/${entry}`, `/etc/${entry}`);
    return { args, generatedEtc: GENERATED_ETC };
  }
  const root = path.resolve(snapshot.rootfs.path);
  const args: string[] = [];
  const names = await readdir(root).catch((error: NodeJS.ErrnoException) => {
    throw new InternalConfigurationError(`Snapshot ${snapshot.id}: its root directory cannot be read (${error.code ?? 'error'})`);
  });
  for (const name of names.sort()) {
    if (!SANDBOX_OWNED.has(name)) args.push(...(await mirrorEntry(root, name)));
  }
  // The root's /etc is read-only, so generated files can only replace ones that exist.
  const generatedEtc: string[] = [];
  for (const name of GENERATED_ETC) {
    const info = await lstat(path.join(root, 'etc', name)).catch(() => null);
    if (info?.isFile()) generatedEtc.push(name);
  }
  return { args, generatedEtc };
}

/** A symlink becomes the same symlink inside; anything else is bound read-only; absent is skipped. */
async function mirrorEntry(root: string, name: string): Promise<string[]> {
  const source = path.join(root, name);
  const info = await lstat(source).catch(() => null);
  if (!info) return [];
  if (info.isSymbolicLink()) return ['--symlink', await readlink(source), `/${name}`];
  return ['--ro-bind', source, `/${name}`];
}
