import { GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';

/** Reads a whole object (backups and attachments are bounded in size). */
export async function getObjectBytes(client: S3Client, input: { bucket: string; key: string }): Promise<Buffer> {
  const object = await client.send(new GetObjectCommand({ Bucket: input.bucket, Key: input.key }));
  if (!object.Body) return Buffer.alloc(0);
  return Buffer.from(await object.Body.transformToByteArray());
}

export async function putObjectBytes(client: S3Client, input: { bucket: string; key: string; bytes: Uint8Array; contentType: string }): Promise<void> {
  await client.send(new PutObjectCommand({ Bucket: input.bucket, Key: input.key, Body: input.bytes, ContentLength: input.bytes.length, ContentType: input.contentType }));
}
