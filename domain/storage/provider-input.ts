import * as v from 'valibot';
import { ConfigurationKey, DisplayName } from '../model-catalog/provider-input.ts';
import { safeRelativePathProblem } from './paths.ts';

/** Request bodies of the storage provider routes (spec 2 "Storage providers"). */

const Secret = (name: string, max: number) =>
  v.pipe(
    v.string(`${name} must be a string`),
    v.trim(),
    v.minLength(1, `${name} must not be empty`),
    v.maxLength(max, `${name} must be at most ${max} characters`),
    v.regex(/^[\x21-\x7e]+$/, `${name} must be printable ASCII without spaces`),
  );

/** `http(s)://host[:port][/path]` of an S3-compatible service; null = AWS's own endpoint for the region. */
const Endpoint = v.nullable(
  v.pipe(
    v.string('endpoint must be a string or null'),
    v.maxLength(2048, 'endpoint must be at most 2048 characters'),
    v.check((text) => {
      try {
        const url = new URL(text);
        return (url.protocol === 'https:' || url.protocol === 'http:') && url.username === '' && url.password === '' && url.search === '' && url.hash === '';
      } catch {
        return false;
      }
    }, 'endpoint must be an http:// or https:// URL without credentials, query or fragment'),
  ),
);

const Region = v.pipe(v.string('region must be a string'), v.regex(/^[a-z0-9][a-z0-9-]{0,63}$/, 'region must be a region name such as "us-east-1"'));

/** S3 bucket naming rules (general purpose buckets). */
const Bucket = v.pipe(
  v.string('bucket must be a string'),
  v.regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'bucket must be 3-63 lowercase letters, digits, dots or hyphens, starting and ending with a letter or digit'),
  v.check((name) => !name.includes('..') && !/^\d+\.\d+\.\d+\.\d+$/.test(name), 'bucket must not contain ".." or look like an IP address'),
);

const Prefix = v.nullable(
  v.pipe(
    v.string('prefix must be a string or null'),
    v.rawCheck(({ dataset, addIssue }) => {
      if (!dataset.typed) return;
      const problem = safeRelativePathProblem(dataset.value, { allowTrailingSlash: true });
      if (problem) addIssue({ message: `prefix ${problem}` });
    }),
    // Stored without a trailing slash; keys are joined with one.
    v.transform((prefix) => prefix.replace(/\/$/, '')),
  ),
);

export const StorageCredentialInput = v.strictObject({
  accessKeyId: Secret('accessKeyId', 256),
  secretAccessKey: Secret('secretAccessKey', 512),
  sessionToken: v.optional(v.nullable(Secret('sessionToken', 8192)), null),
});
export type StorageCredential = v.InferOutput<typeof StorageCredentialInput>;

export const CreateStorageProviderInput = v.strictObject({
  key: ConfigurationKey,
  displayName: DisplayName,
  providerType: v.literal('s3', 'providerType must be "s3"'),
  endpoint: v.optional(Endpoint, null),
  region: Region,
  bucket: Bucket,
  prefix: v.optional(Prefix, null),
  forcePathStyle: v.optional(v.boolean('forcePathStyle must be true or false'), false),
  setDefault: v.optional(v.boolean('setDefault must be true or false'), false),
  ...StorageCredentialInput.entries,
});
export type CreateStorageProviderInput = v.InferOutput<typeof CreateStorageProviderInput>;

/** `GET .../objects`: one folder level under a safe relative `prefix`, paged by an opaque cursor. */
export const ObjectListingQuery = v.object({
  prefix: v.optional(
    v.pipe(
      v.string(),
      v.rawCheck(({ dataset, addIssue }) => {
        if (!dataset.typed || dataset.value === '') return;
        const problem = safeRelativePathProblem(dataset.value, { allowTrailingSlash: true });
        if (problem) addIssue({ message: `prefix ${problem}` });
      }),
    ),
    '',
  ),
  cursor: v.optional(v.pipe(v.string(), v.maxLength(2048, 'cursor is too long'))),
  limit: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d{1,4}$/, 'limit must be an integer from 1 to 1000'),
      v.transform(Number),
      v.minValue(1, 'limit must be an integer from 1 to 1000'),
      v.maxValue(1000, 'limit must be an integer from 1 to 1000'),
    ),
    '1000',
  ),
});
