import { S3Client } from '@aws-sdk/client-s3';
import { checkedAgents, DestinationBlockedError } from '../outbound/checked-agents.ts';
import type { StorageCredential } from '../../domain/storage/provider-input.ts';
import type { DestinationLookup } from '../outbound/pinned-destination.ts';

export type { S3Client };

/**
 * The server's rule for storage endpoints, the webhooks' one (SVC_OUTBOUND_ALLOW_PRIVATE_NETWORK,
 * development only): `lookup` replaces the system resolver where the worker is given one.
 */
export type StorageEndpointPolicy = { allowPrivateNetwork: boolean; lookup?: DestinationLookup };

/** Where and as whom to reach one bucket store; the secret is already opened by the caller. */
export type S3Connection = {
  region: string;
  endpoint: string | null;
  forcePathStyle: boolean;
  credential: StorageCredential;
};

/**
 * An S3 client for one connection. Checksums are sent only where S3 requires them, which every
 * S3-compatible store understands (newer SDK defaults add CRC32 headers some stores refuse).
 * A custom endpoint goes through checked agents: every connection resolves the endpoint's host,
 * refuses non-public answers (unless the policy allows private networks) and dials only the
 * checked address, so a request to a refused endpoint fails with `DestinationBlockedError`
 * before any byte is sent. A null endpoint is AWS's own for the region (`*.amazonaws.com`),
 * which may rightly resolve to private VPC-endpoint addresses, so it is not checked.
 */
export function checkedS3Client(connection: S3Connection, policy: StorageEndpointPolicy): S3Client {
  const { credential } = connection;
  return new S3Client({
    region: connection.region,
    ...(connection.endpoint ? { endpoint: connection.endpoint, requestHandler: checkedAgents(policy, 'storage endpoint') } : {}),
    forcePathStyle: connection.forcePathStyle,
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

/** Why a storage request failed when the address policy refused the endpoint (a safe phrase), else null. */
export function blockedEndpointReason(error: unknown): string | null {
  return error instanceof DestinationBlockedError ? `its endpoint is not allowed (${error.reason})` : null;
}
