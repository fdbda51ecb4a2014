import * as v from 'valibot';
import { Id, page, Timestamp } from './common.ts';

/** A standalone upload: safe metadata only (never bytes). */
export const PublicUploadShape = v.strictObject({
  id: Id,
  organizationId: Id,
  projectId: Id,
  name: v.string(),
  contentType: v.string(),
  sizeBytes: v.pipe(v.number(), v.integer(), v.minValue(0)),
  sha256: v.string(),
  createdAt: Timestamp,
  expiresAt: v.nullable(Timestamp),
});

export const UploadPageShape = page(PublicUploadShape);

/** `DELETE /uploads/{id}`. */
export const UploadDeletedShape = v.strictObject({ id: Id, deleted: v.literal(true) });

/** Upload lifetimes a caller may ask for: one hour to 90 days. */
export const MIN_UPLOAD_LIFETIME_SECONDS = 3600;
export const MAX_UPLOAD_LIFETIME_SECONDS = 90 * 24 * 3600;

/** `POST /uploads`: one file input item (spec 2 "File input item"), and how long to keep it (absent: until deleted). */
export const CreateUploadInput = v.strictObject({
  name: v.string(),
  contentType: v.string(),
  dataBase64: v.string(),
  expiresInSeconds: v.optional(
    v.pipe(
      v.number(),
      v.integer('expiresInSeconds must be an integer'),
      v.minValue(MIN_UPLOAD_LIFETIME_SECONDS, `expiresInSeconds must be from ${MIN_UPLOAD_LIFETIME_SECONDS} to ${MAX_UPLOAD_LIFETIME_SECONDS}`),
      v.maxValue(MAX_UPLOAD_LIFETIME_SECONDS, `expiresInSeconds must be from ${MIN_UPLOAD_LIFETIME_SECONDS} to ${MAX_UPLOAD_LIFETIME_SECONDS}`),
    ),
  ),
});
export type CreateUploadInput = v.InferOutput<typeof CreateUploadInput>;
