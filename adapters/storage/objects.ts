import { DeleteObjectCommand, GetObjectCommand, ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { SpanKind, withSpan } from '../tracing.ts';

/**
 * Each call is one CLIENT span `S3.<Operation>` (`rpc.system` aws-api, `rpc.service` S3,
 * `rpc.method`, `aws.s3.bucket`); never an object key (keys carry file names) or its contents.
 */
function traced<T>(operation: string, bucket: string, call: () => Promise<T>): Promise<T> {
  const attributes = { 'rpc.system': 'aws-api', 'rpc.service': 'S3', 'rpc.method': operation, 'aws.s3.bucket': bucket };
  return withSpan(`S3.${operation}`, { kind: SpanKind.CLIENT, attributes }, () => call());
}

/** Reads a whole object (backups and attachments are bounded in size). */
export function getObjectBytes(client: S3Client, input: { bucket: string; key: string }): Promise<Buffer> {
  return traced('GetObject', input.bucket, async () => {
    const object = await client.send(new GetObjectCommand({ Bucket: input.bucket, Key: input.key }));
    if (!object.Body) return Buffer.alloc(0);
    return Buffer.from(await object.Body.transformToByteArray());
  });
}

export async function putObjectBytes(client: S3Client, input: { bucket: string; key: string; bytes: Uint8Array; contentType: string }): Promise<void> {
  await traced('PutObject', input.bucket, () =>
    client.send(
      new PutObjectCommand({ Bucket: input.bucket, Key: input.key, Body: input.bytes, ContentLength: input.bytes.length, ContentType: input.contentType }),
    ),
  );
}

/** One page of a bucket listing, in the store's own terms (keys whole, as stored). */
export type ObjectPage = {
  objects: Array<{ key: string; sizeBytes: number; lastModified: Date | null }>;
  /** Common prefixes (with a delimiter): the "folders" at this level. */
  folders: string[];
  truncated: boolean;
  /** Where the next page starts (ListObjectsV2's continuation token), when truncated. */
  continuationToken: string | null;
};

/**
 * Lists one page of keys under `prefix` (ListObjectsV2): after `startAfter` or from a
 * `continuationToken`, grouped at `delimiter` when given.
 */
export async function listObjectPage(
  client: S3Client,
  input: { bucket: string; prefix: string; maxKeys: number; delimiter?: string; startAfter?: string | null; continuationToken?: string | null },
): Promise<ObjectPage> {
  const page = await traced('ListObjectsV2', input.bucket, () =>
    client.send(
      new ListObjectsV2Command({
        Bucket: input.bucket,
        Prefix: input.prefix,
        MaxKeys: input.maxKeys,
        ...(input.delimiter ? { Delimiter: input.delimiter } : {}),
        ...(input.startAfter ? { StartAfter: input.startAfter } : {}),
        ...(input.continuationToken ? { ContinuationToken: input.continuationToken } : {}),
      }),
    ),
  );
  return {
    objects: (page.Contents ?? []).flatMap((entry) =>
      entry.Key ? [{ key: entry.Key, sizeBytes: entry.Size ?? 0, lastModified: entry.LastModified ?? null }] : [],
    ),
    folders: (page.CommonPrefixes ?? []).flatMap((entry) => (entry.Prefix ? [entry.Prefix] : [])),
    truncated: page.IsTruncated === true,
    continuationToken: page.NextContinuationToken ?? null,
  };
}

export async function deleteObject(client: S3Client, input: { bucket: string; key: string }): Promise<void> {
  await traced('DeleteObject', input.bucket, () => client.send(new DeleteObjectCommand({ Bucket: input.bucket, Key: input.key })));
}
