import { randomBytes, randomUUID } from 'node:crypto';
import { CreateBucketCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

/** The S3-compatible server of the global setup (moto, or TEST_S3_ENDPOINT) speaks S3 to the real AWS SDK. */

let s3: S3Client;
const bucket = `test-${randomUUID()}`;
const bytes = new Uint8Array(randomBytes(64 * 1024 + 7));

beforeAll(async () => {
  const server = inject('s3');
  s3 = new S3Client({
    endpoint: server.endpoint,
    region: server.region,
    credentials: { accessKeyId: server.accessKeyId, secretAccessKey: server.secretAccessKey },
    forcePathStyle: true,
  });
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));
});

afterAll(() => {
  s3?.destroy();
});

describe('test S3 server', () => {
  it('returns stored bytes unchanged', async () => {
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'blobs/random.bin', Body: bytes, ContentType: 'application/octet-stream' }));
    const got = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'blobs/random.bin' }));
    expect(Buffer.from(await got.Body!.transformToByteArray()).equals(Buffer.from(bytes))).toBe(true);
    expect(got.ContentLength).toBe(bytes.byteLength);
  });

  it('reports the size with HeadObject', async () => {
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'head/sized.txt', Body: 'twelve bytes' }));
    const head = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'head/sized.txt' }));
    expect(head.ContentLength).toBe(12);
  });

  it('lists folders and objects with a delimiter', async () => {
    const prefix = 'tree/';
    for (const key of ['a.txt', 'b.txt', 'docs/one.md', 'docs/two.md', 'img/logo.png']) {
      await s3.send(new PutObjectCommand({ Bucket: bucket, Key: prefix + key, Body: key }));
    }
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, Delimiter: '/' }));
    expect(listed.CommonPrefixes?.map((p) => p.Prefix)).toEqual(['tree/docs/', 'tree/img/']);
    expect(listed.Contents?.map((o) => [o.Key, o.Size])).toEqual([
      ['tree/a.txt', 5],
      ['tree/b.txt', 5],
    ]);
    expect(listed.IsTruncated).toBe(false);
  });

  it('pages a delimited listing with continuation tokens', async () => {
    const prefix = 'pages/';
    for (const key of ['1.txt', '2.txt', 'x/1.txt', 'y/1.txt', 'z.txt']) {
      await s3.send(new PutObjectCommand({ Bucket: bucket, Key: prefix + key, Body: key }));
    }
    const seen: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, Delimiter: '/', MaxKeys: 2, ContinuationToken: token }));
      pages++;
      seen.push(...(page.CommonPrefixes ?? []).map((p) => p.Prefix!), ...(page.Contents ?? []).map((o) => o.Key!));
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    expect(seen.sort()).toEqual(['pages/1.txt', 'pages/2.txt', 'pages/x/', 'pages/y/', 'pages/z.txt']);
    expect(pages).toBe(3);
  });
});
