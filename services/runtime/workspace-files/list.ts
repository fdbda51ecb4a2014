import type * as v from 'valibot';
import type { WorkspaceFileListShape } from '../../../domain/public-shapes/sessions.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import type { CredentialKeyring } from '../../kernel/credentials/index.ts';
import type { StorageEndpointPolicy } from '../../configuration/storage-providers/index.ts';
import { loadVerifiedBackup } from './latest-backup.ts';

export type WorkspaceFileList = v.InferOutput<typeof WorkspaceFileListShape>;

/**
 * `GET /sessions/{id}/files` (spec 2): the regular files of the latest verified backup
 * generation, in path order. A session without a completed backup answers empty `data` and nulls.
 */
export async function listWorkspaceFiles({
  ctx,
  keyring,
  policy,
  input,
}: {
  ctx: ServiceContext;
  keyring: CredentialKeyring;
  policy: StorageEndpointPolicy;
  input: { sessionId: string };
}): Promise<WorkspaceFileList> {
  const verified = await loadVerifiedBackup(ctx, { sessionId: input.sessionId, keyring, policy });
  if (!verified) return { data: [], generation: null, backedUpAt: null, lastRunId: null };
  const { backup, manifest } = verified;
  return {
    data: manifest.files.map((file) => ({ name: file.path.split('/').at(-1)!, path: file.path, sizeBytes: file.sizeBytes })),
    generation: backup.generation,
    backedUpAt: backup.createdAt.toISOString(),
    lastRunId: backup.runId,
  };
}
