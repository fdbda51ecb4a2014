import { createHash } from 'node:crypto';
import { getObjectBytes } from '../../../adapters/storage/objects.ts';
import { ConflictError } from '../../../domain/errors.ts';
import type { CredentialKeyring } from '../../kernel/credentials/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { loadStorageProvider } from '../../configuration/storage-providers/index.ts';
import { s3ClientFor, type StorageEndpointPolicy } from '../../configuration/storage-providers/index.ts';
import { storageFailure } from '../../configuration/storage-providers/index.ts';
import { PUBLIC_STORAGE_ONLY } from './store.ts';

/**
 * The bytes of a stored file (an upload's or a turn's attachment), read from its storage
 * connection and checked against the recorded length and SHA-256 before any is handed on (409
 * when they cannot be read or do not match).
 */
export async function readStoredFile(
  ctx: ServiceContext,
  deps: { keyring: CredentialKeyring; storagePolicy?: StorageEndpointPolicy },
  file: { organizationId: string; storageProviderId: string; objectKey: string; sizeBytes: number; sha256: string },
): Promise<Buffer> {
  const provider = await loadStorageProvider(ctx, { organizationId: file.organizationId, providerId: file.storageProviderId });
  const client = s3ClientFor(provider, deps.keyring, deps.storagePolicy ?? PUBLIC_STORAGE_ONLY);
  let bytes: Buffer;
  try {
    bytes = await getObjectBytes(client, { bucket: provider.bucket, key: file.objectKey });
  } catch (error) {
    throw storageFailure(ctx, { what: 'readFile', providerId: provider.id, error });
  } finally {
    client.destroy();
  }
  if (bytes.length !== file.sizeBytes || createHash('sha256').update(bytes).digest('hex') !== file.sha256)
    throw new ConflictError('The file failed verification: its stored bytes do not match what was uploaded');
  return bytes;
}
