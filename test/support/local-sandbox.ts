import { randomUUID } from 'node:crypto';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { inject } from 'vitest';

type Call = (method: string, path: string, body?: unknown) => Promise<{ status: number; body: any }>;

/**
 * What a sandboxed run needs in a test project: a storage connection to a fresh bucket of the
 * suite's S3 server (workspace backups) and the local sandbox provider under `key`. Returns the
 * id of its first snapshot. The app must allow private networks (the S3 server is on loopback).
 */
export async function connectLocalSandbox(call: Call, options: { key: string; storageKey: string }): Promise<string> {
  const server = inject('s3');
  const bucket = `${options.storageKey.slice(0, 40)}-${randomUUID().slice(0, 8)}`;
  const s3 = new S3Client({
    endpoint: server.endpoint,
    region: server.region,
    forcePathStyle: true,
    credentials: { accessKeyId: server.accessKeyId, secretAccessKey: server.secretAccessKey },
  });
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  s3.destroy();
  await call('POST', '/storage-providers', {
    key: options.storageKey,
    displayName: 'Files',
    providerType: 's3',
    endpoint: server.endpoint,
    region: server.region,
    bucket,
    prefix: null,
    forcePathStyle: true,
    accessKeyId: server.accessKeyId,
    secretAccessKey: server.secretAccessKey,
  });
  const provider = await call('POST', '/sandbox-providers', { key: options.key, displayName: 'Local', providerType: 'sandbox_vendor', apiKey: 'local' });
  return (await call('GET', `/sandbox-providers/${provider.body.id}/snapshots`)).body.data[0].id as string;
}
