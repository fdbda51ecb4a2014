import { createHash } from 'node:crypto';
import { getObjectBytes, putObjectBytes } from '../../../adapters/storage/objects.ts';
import { tenantRoot } from '../../../domain/storage/paths.ts';
import { serializeManifest } from '../../../domain/workspace-files/manifest.ts';
import type { CredentialKeyring } from '../../kernel/credentials/index.ts';
import { backupKeys, type WorkspaceBackupRow } from '../sandboxes/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { s3ClientFor, type StorageEndpointPolicy } from '../../configuration/storage-providers/index.ts';
import { verifyArchiveBytes } from './archive-reader.ts';
import { loadVerifiedBackup } from './latest-backup.ts';

/** The row of a copied backup, for the caller's transaction (`workspace_backups`). */
export type CopiedBackup = Omit<WorkspaceBackupRow, 'id' | 'createdAt'>;

/**
 * A fork's workspace (docs/decisions/session-fork.md): the source session's latest
 * backup, verified (manifest and archive against their recorded checksums), copied as generation
 * 1 of the new workspace, with its manifest rebound to it. Done before the fork's transaction
 * (network I/O); the returned row is inserted in it. Null when the source has no backup or it
 * cannot be read or verified: the fork then starts empty (and says so), it is not refused.
 */
export async function copyBackupForFork(
  ctx: ServiceContext,
  input: { sourceSessionId: string; targetWorkspaceSessionId: string; keyring: CredentialKeyring; policy: StorageEndpointPolicy },
): Promise<CopiedBackup | null> {
  let verified;
  try {
    verified = await loadVerifiedBackup(ctx, { sessionId: input.sourceSessionId, keyring: input.keyring, policy: input.policy });
  } catch (error) {
    ctx.logger.warn('a fork starts with an empty workspace: the source backup is unavailable', { errorName: (error as Error).name, requestId: ctx.requestId });
    return null;
  }
  if (!verified) return null;
  const { backup, provider, manifest } = verified;
  const client = s3ClientFor(provider, input.keyring, input.policy);
  try {
    const archive = await getObjectBytes(client, { bucket: provider.bucket, key: backup.archiveKey });
    if (verifyArchiveBytes(archive, { sizeBytes: backup.archiveSizeBytes, sha256: backup.archiveSha256 })) return null;
    const keys = backupKeys(
      tenantRoot({ providerPrefix: provider.prefix, organizationId: backup.organizationId, projectId: backup.projectId }),
      input.targetWorkspaceSessionId,
      1,
    );
    const rebound = serializeManifest({ ...manifest, workspaceSessionId: input.targetWorkspaceSessionId, generation: 1 });
    await putObjectBytes(client, { bucket: provider.bucket, key: keys.archiveKey, bytes: archive, contentType: 'application/x-tar' });
    await putObjectBytes(client, { bucket: provider.bucket, key: keys.manifestKey, bytes: rebound, contentType: 'application/json' });
    return {
      organizationId: backup.organizationId,
      projectId: backup.projectId,
      workspaceSessionId: input.targetWorkspaceSessionId,
      runId: backup.runId,
      generation: 1,
      storageProviderId: backup.storageProviderId,
      archiveKey: keys.archiveKey,
      archiveSizeBytes: backup.archiveSizeBytes,
      archiveSha256: backup.archiveSha256,
      manifestKey: keys.manifestKey,
      manifestSha256: createHash('sha256').update(rebound).digest('hex'),
      fileCount: backup.fileCount,
      totalBytes: backup.totalBytes,
    };
  } catch (error) {
    ctx.logger.warn('a fork starts with an empty workspace: the source backup could not be copied', {
      errorName: (error as Error).name,
      requestId: ctx.requestId,
    });
    return null;
  } finally {
    client.destroy();
  }
}
