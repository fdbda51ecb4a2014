import { chmod, chown, lstat, mkdir, readdir, rm, stat } from 'node:fs/promises';
import * as path from 'node:path';
import { InternalConfigurationError, ValidationError } from '../../../domain/errors.ts';
import { mountSizedWorkspace, unmountWorkspace } from './workspace-quota.ts';
import { isUuid } from '../../../domain/uuid.ts';

/**
 * Where a sandbox's files live on the host: `<dataDir>/sandboxes/<sandboxId>/workspace`, the only
 * writable mount inside the sandbox. bubblewrap resolves bind sources as the sandbox's host user,
 * so that user must be able to search every directory down to the workspace.
 */

export type { SandboxUser } from './sandbox-user.ts';
import type { SandboxUser } from './sandbox-user.ts';

export function assertSandboxId(sandboxId: unknown): asserts sandboxId is string {
  if (typeof sandboxId !== 'string' || !isUuid(sandboxId)) throw new ValidationError('sandboxId must be a UUID', { path: 'sandboxId' });
}

/**
 * Root would bypass RLIMIT_NPROC (the kernel exempts the initial root user) and own the host if
 * a sandbox escaped, so a root worker drops to `nobody` unless told otherwise; any other worker
 * runs sandboxes as itself.
 */
export function resolveSandboxUser(requested: SandboxUser | undefined): SandboxUser {
  const self = { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };
  const user = self.uid === 0 ? (requested ?? { uid: 65534, gid: 65534 }) : self;
  if (user.uid === 0 || user.gid === 0) throw new InternalConfigurationError('Sandboxes must not run as host root (uid or gid 0)');
  if (self.uid !== 0 && requested && (requested.uid !== self.uid || requested.gid !== self.gid)) {
    throw new InternalConfigurationError('A sandbox user other than the worker itself needs a root worker');
  }
  return user;
}

export function sandboxDir(dataDir: string, sandboxId: string): string {
  assertSandboxId(sandboxId);
  return path.join(dataDir, 'sandboxes', sandboxId.toLowerCase());
}

export function workspaceDir(dataDir: string, sandboxId: string): string {
  return path.join(sandboxDir(dataDir, sandboxId), 'workspace');
}

/**
 * Creates the workspace (0700, owned by the sandbox user); idempotent. Returns its host path and
 * whether it is a file system of its own, `diskMb` in size (`workspace-quota.ts`; the size is
 * needed only to create one; `mount: false` keeps a plain directory, measured instead).
 */
export async function ensureWorkspaceDir(
  dataDir: string,
  sandboxId: string,
  user: SandboxUser,
  diskMb?: number,
  mount = true,
): Promise<{ workspace: string; sized: boolean }> {
  const owned = (process.getuid?.() ?? 0) === 0;
  const sandboxes = path.join(dataDir, 'sandboxes');
  const perSandbox = sandboxDir(dataDir, sandboxId);
  const workspace = workspaceDir(dataDir, sandboxId);
  // Search-only (0711) for the parents: the sandbox user may pass through but not list them.
  await mkdir(sandboxes, { recursive: true, mode: 0o711 });
  // The data dir is private (0700, issue 28): a root worker's sandbox user passes through it, search only.
  if (owned) await chmod(dataDir, ((await stat(dataDir)).mode & 0o7777) | 0o011);
  await mkdir(perSandbox, { recursive: true, mode: 0o711 });
  await mkdir(workspace, { recursive: true, mode: 0o700 });
  const info = await lstat(workspace);
  if (!info.isDirectory()) throw new InternalConfigurationError('A sandbox workspace path exists and is not a directory');
  // Checked before mounting: a mount made for a workspace that then fails is never unmounted.
  await assertSearchable(sandboxes, user);
  const sized = mount && (await mountSizedWorkspace({ workspace, diskMb, user }));
  if (owned) await chown(workspace, user.uid, user.gid);
  await chmod(workspace, 0o700);
  return { workspace, sized };
}

/** Deletes the sandbox's directory and everything in it; a missing one is fine. */
export async function removeSandboxDir(dataDir: string, sandboxId: string): Promise<void> {
  const dir = sandboxDir(dataDir, sandboxId);
  await unmountWorkspace(workspaceDir(dataDir, sandboxId));
  try {
    await rm(dir, { recursive: true, force: true });
  } catch (error) {
    // A non-root worker cannot descend into directories a command made unreadable (chmod 000).
    if ((error as NodeJS.ErrnoException).code !== 'EACCES') throw error;
    await makeOwnerWritable(dir);
    await rm(dir, { recursive: true, force: true });
  }
}

async function makeOwnerWritable(dir: string): Promise<void> {
  await chmod(dir, 0o700);
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) await makeOwnerWritable(path.join(dir, entry.name));
  }
}

/** Fails early, with a fixable message, when the sandbox user could not reach `dir`. */
export async function assertSearchable(dir: string, user: SandboxUser): Promise<void> {
  let current = path.resolve(dir);
  for (;;) {
    const info = await stat(current);
    const bits = info.uid === user.uid ? 0o100 : info.gid === user.gid ? 0o010 : 0o001;
    if ((info.mode & bits) === 0) {
      throw new InternalConfigurationError(
        `The sandbox user (uid ${user.uid}) cannot search ${current}; make it searchable (chmod o+x) or put the data directory elsewhere`,
      );
    }
    const parent = path.dirname(current);
    if (parent === current) return;
    current = parent;
  }
}
