import { readFileSync } from 'node:fs';
import { BUILT_IN_SNAPSHOT, parseSnapshotRegistry, type Snapshot } from '../../../domain/sandbox/snapshot-registry.ts';

/** A bad SVC_SANDBOX_SNAPSHOTS_FILE: the server refuses to start. */
export class SnapshotRegistryError extends Error {
  override name = 'SnapshotRegistryError';
}

/**
 * Reads the snapshot registry once at start: the file's snapshots, or the built-in read-only view
 * of the host's `/usr` when none is configured. API and worker read the same file.
 */
export function loadSnapshotRegistry(file: string | undefined): Snapshot[] {
  if (!file) return [BUILT_IN_SNAPSHOT];
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    const reason = error instanceof SyntaxError ? 'is not valid JSON' : `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`;
    throw new SnapshotRegistryError(`SVC_SANDBOX_SNAPSHOTS_FILE ${file} ${reason}`);
  }
  try {
    return parseSnapshotRegistry(json);
  } catch (error) {
    throw new SnapshotRegistryError(`SVC_SANDBOX_SNAPSHOTS_FILE ${file}: ${(error as Error).message}`);
  }
}
