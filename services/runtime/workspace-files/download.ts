import { NotFoundError, ValidationError } from '../../../domain/errors.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import type { CredentialKeyring } from '../../kernel/credentials/index.ts';
import { getObjectBytes } from '../../../adapters/storage/objects.ts';
import { s3ClientFor, type StorageEndpointPolicy } from '../../configuration/storage-providers/index.ts';
import { storageFailure } from '../../configuration/storage-providers/index.ts';
import { extractArchiveFile, normalizeRequestPath, verifyArchiveBytes } from './archive-reader.ts';
import { loadVerifiedBackup, unavailable } from './latest-backup.ts';

/**
 * `GET /sessions/{id}/files/{path}` (spec 2): one regular file of the latest verified backup.
 * The path's segments arrive percent-decoded one by one. Before any byte is sent the archive is
 * read from storage (never the sandbox) and checked: length and SHA-256 against the backup row,
 * tar structure, the entry's type, size and SHA-256 against the manifest. 400 unsafe path, 404
 * unknown path, 409 when anything about the backup cannot be trusted.
 */
export async function downloadWorkspaceFile({
  ctx,
  keyring,
  policy,
  input,
}: {
  ctx: ServiceContext;
  keyring: CredentialKeyring;
  policy: StorageEndpointPolicy;
  input: { sessionId: string; segments: string[] };
}): Promise<{ path: string; name: string; bytes: Buffer }> {
  const request = normalizeRequestPath(input.segments);
  if (!request.ok) throw new ValidationError('The file path is not a safe workspace path', { path: 'path' });
  const verified = await loadVerifiedBackup(ctx, { sessionId: input.sessionId, keyring, policy });
  const entry = verified?.manifest.files.find((file) => file.path === request.path);
  if (!verified || !entry) throw new NotFoundError('No file with that path in the latest workspace backup');
  const { backup, provider } = verified;
  const client = s3ClientFor(provider, keyring, policy);
  let archive: Buffer;
  try {
    archive = await getObjectBytes(client, { bucket: provider.bucket, key: backup.archiveKey });
  } catch (error) {
    throw storageFailure(ctx, { what: 'readArchive', providerId: provider.id, error, logFields: { backupId: backup.id } });
  } finally {
    client.destroy();
  }
  const problem = verifyArchiveBytes(archive, { sizeBytes: backup.archiveSizeBytes, sha256: backup.archiveSha256 });
  if (problem) throw unavailable(`its archive failed verification (${problem})`);
  const extracted = await extractArchiveFile(archive, entry);
  if (!extracted.ok) throw unavailable(`the file failed verification (${extracted.problem})`);
  return { path: entry.path, name: entry.path.split('/').at(-1)!, bytes: extracted.bytes };
}
