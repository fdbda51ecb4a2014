import * as path from 'node:path';
import { ValidationError } from '../../../domain/errors.ts';
import type { Snapshot } from '../../../domain/sandbox/snapshot-registry.ts';

/**
 * The registry format and its parser live in `domain/sandbox/snapshot-registry.ts` (one rule,
 * shared with the API); re-exported so driver callers have one import. The driver reads only the
 * fields below, so any registry entry can be passed as is.
 */
export { parseSnapshotRegistry, type Snapshot } from '../../../domain/sandbox/snapshot-registry.ts';

export type SnapshotForExec = Pick<Snapshot, 'id' | 'state' | 'resource' | 'rootfs'>;

/** Only active snapshots run, and a `directory` root must never be the host's own `/`. */
export function assertRunnableSnapshot(snapshot: SnapshotForExec): void {
  if (snapshot.state !== 'active') throw new ValidationError(`snapshot is ${snapshot.state}, not active`, { path: 'snapshot.state' });
  const { cpu, memoryMb, diskMb } = snapshot.resource;
  for (const [key, value] of Object.entries({ cpu, memoryMb, diskMb })) {
    if (!Number.isSafeInteger(value) || value < 1)
      throw new ValidationError(`snapshot.resource.${key} must be a positive integer`, { path: `snapshot.resource.${key}` });
  }
  if (snapshot.rootfs.kind === 'directory') {
    const root = snapshot.rootfs.path;
    if (!path.isAbsolute(root) || path.resolve(root) === '/') {
      throw new ValidationError('snapshot.rootfs.path must be an absolute directory other than /', { path: 'snapshot.rootfs.path' });
    }
  }
}
