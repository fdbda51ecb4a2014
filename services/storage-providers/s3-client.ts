import { S3Client } from '@aws-sdk/client-s3';
import type { CredentialKeyring } from '../credentials/keyring.ts';
import { openStorageCredential } from './credential.ts';
import type { StorageProviderRow } from './public.ts';

/**
 * An S3 client for one connection. Checksums are sent only where S3 requires them, which every
 * S3-compatible store understands (newer SDK defaults add CRC32 headers some stores refuse).
 */
export function s3ClientFor(row: StorageProviderRow, keyring: CredentialKeyring): S3Client {
  const credential = openStorageCredential(keyring, row);
  return new S3Client({
    region: row.region,
    ...(row.endpoint ? { endpoint: row.endpoint } : {}),
    forcePathStyle: row.forcePathStyle,
    credentials: {
      accessKeyId: credential.accessKeyId,
      secretAccessKey: credential.secretAccessKey,
      ...(credential.sessionToken ? { sessionToken: credential.sessionToken } : {}),
    },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 3,
  });
}
