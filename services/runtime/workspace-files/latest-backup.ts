import { createHash } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { storageProviders } from '../../../db/schema/index.ts';
import { ConflictError } from '../../../domain/errors.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import type { CredentialKeyring } from '../../kernel/credentials/index.ts';
import { latestWorkspaceBackup, type WorkspaceBackupRow } from '../sandboxes/index.ts';
import { workspaceOwnerOf } from '../sandboxes/index.ts';
import { findSession } from '../runs/index.ts';
import { getObjectBytes } from '../../../adapters/storage/objects.ts';
import type { StorageProviderRow } from '../../configuration/storage-providers/index.ts';
import { s3ClientFor, type StorageEndpointPolicy } from '../../configuration/storage-providers/index.ts';
import { storageFailure } from '../../configuration/storage-providers/index.ts';
import { parseManifest, type WorkspaceManifest } from '../../../domain/workspace-files/manifest.ts';

export type VerifiedBackup = { backup: WorkspaceBackupRow; provider: StorageProviderRow; manifest: WorkspaceManifest };

/** The 409 of spec 2 "Download": backup, manifest, provider or integrity binding unavailable. */
export const unavailable = (what: string) => new ConflictError(`The workspace backup is unavailable: ${what}`);

/**
 * The latest backup generation of the session's workspace (delegated sessions resolve through
 * the workspace owner) with its manifest read from storage and bound to the row: same SHA-256,
 * generation, workspace and run. Null when the workspace has no backup yet (404 for the session
 * itself comes from `findSession`).
 */
export async function loadVerifiedBackup(
  ctx: ServiceContext,
  input: { sessionId: string; keyring: CredentialKeyring; policy: StorageEndpointPolicy },
): Promise<VerifiedBackup | null> {
  const session = await findSession({ ctx, input: { sessionId: input.sessionId } });
  const workspaceSessionId = await workspaceOwnerOf(ctx, session.id);
  const backup = await latestWorkspaceBackup(ctx, { projectId: session.projectId, workspaceSessionId });
  if (!backup) return null;
  const [provider] = await ctx.db.select().from(storageProviders).where(eq(storageProviders.id, backup.storageProviderId));
  if (!provider || !input.keyring.configured) throw unavailable('its storage connection cannot be used');
  const client = s3ClientFor(provider, input.keyring, input.policy);
  let bytes: Buffer;
  try {
    bytes = await getObjectBytes(client, { bucket: provider.bucket, key: backup.manifestKey });
  } catch (error) {
    throw storageFailure(ctx, { what: 'readManifest', providerId: provider.id, error, logFields: { backupId: backup.id } });
  } finally {
    client.destroy();
  }
  if (createHash('sha256').update(bytes).digest('hex') !== backup.manifestSha256) throw unavailable('its manifest does not match the recorded checksum');
  const manifest = parseManifest(bytes);
  if (!manifest || manifest.generation !== backup.generation || manifest.workspaceSessionId !== workspaceSessionId || manifest.runId !== backup.runId) {
    throw unavailable('its manifest is invalid');
  }
  if (manifest.archive.sizeBytes !== backup.archiveSizeBytes || manifest.archive.sha256 !== backup.archiveSha256)
    throw unavailable('its manifest names another archive');
  return { backup, provider, manifest };
}
