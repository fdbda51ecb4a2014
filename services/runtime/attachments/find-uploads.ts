import { and, eq, gt, inArray, isNull, or } from 'drizzle-orm';
import { uploads } from '../../../db/schema/index.ts';
import { isUploadRef, type TurnFileInput } from '../../../domain/attachments/file-input.ts';
import { ValidationError } from '../../../domain/errors.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';

export type UploadRow = typeof uploads.$inferSelect;

/** An upload that has not expired (the condition every read and turn applies). */
export const uploadIsLive = (now: Date) => or(isNull(uploads.expiresAt), gt(uploads.expiresAt, now));

/**
 * The uploads a turn's files name, by id: each must be one of the project's, not expired (a 400
 * naming the item otherwise).
 */
export async function findTurnUploads(ctx: ServiceContext, input: { projectId: string; files: readonly TurnFileInput[] }): Promise<Map<string, UploadRow>> {
  const ids = [...new Set(input.files.filter(isUploadRef).map((file) => file.uploadId))];
  if (ids.length === 0) return new Map();
  const rows = await ctx.db
    .select()
    .from(uploads)
    .where(and(eq(uploads.projectId, input.projectId), inArray(uploads.id, ids), uploadIsLive(ctx.clock.now())));
  const found = new Map(rows.map((row) => [row.id, row]));
  for (const [index, file] of input.files.entries()) {
    if (isUploadRef(file) && !found.has(file.uploadId))
      throw new ValidationError(`Invalid body: files.${index}.uploadId: no upload with that id in this project (it may have expired)`, {
        path: `body.files.${index}.uploadId`,
      });
  }
  return found;
}
