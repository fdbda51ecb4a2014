import { checkedS3Client, type S3Client, type StorageEndpointPolicy } from '../../../adapters/storage/s3-client.ts';
import type { CredentialKeyring } from '../../kernel/credentials/index.ts';
import { openStorageCredential } from './credential.ts';
import type { StorageProviderRow } from './public.ts';

export { blockedEndpointReason, type StorageEndpointPolicy } from '../../../adapters/storage/s3-client.ts';

/** An S3 client for one storage connection: its sealed credential opened, its endpoint checked on every connection. */
export function s3ClientFor(row: StorageProviderRow, keyring: CredentialKeyring, policy: StorageEndpointPolicy): S3Client {
  return checkedS3Client(
    { region: row.region, endpoint: row.endpoint, forcePathStyle: row.forcePathStyle, credential: openStorageCredential(keyring, row) },
    policy,
  );
}
