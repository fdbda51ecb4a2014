import type * as v from 'valibot';
import type { PublicUploadShape } from '../../../domain/public-shapes/uploads.ts';
import type { UploadRow } from '../attachments/index.ts';

export type PublicUpload = v.InferOutput<typeof PublicUploadShape>;

export const toUploadResponse = (row: UploadRow): PublicUpload => ({
  id: row.id,
  organizationId: row.organizationId,
  projectId: row.projectId,
  name: row.filename,
  contentType: row.contentType,
  sizeBytes: row.sizeBytes,
  sha256: row.sha256,
  createdAt: row.createdAt.toISOString(),
  expiresAt: row.expiresAt ? row.expiresAt.toISOString() : null,
});
