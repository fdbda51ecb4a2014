import { HeadObjectCommand, type S3Client } from '@aws-sdk/client-s3';

/** Whether `key` is stored in `bucket` (a HEAD request; 404 is no, any other failure throws). */
export async function objectExists(s3: S3Client, bucket: string, key: string): Promise<boolean> {
  try {
    await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
    return true;
  } catch (error) {
    if ((error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404) return false;
    throw error;
  }
}
