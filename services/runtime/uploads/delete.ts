import { eq } from 'drizzle-orm';
import { uploads } from '../../../db/schema/index.ts';
import { recordAudit } from '../../kernel/audit/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { findUpload } from './read.ts';

/**
 * Deletes an upload (`DELETE /uploads/{id}`): its row goes, so no later turn can name it; turns
 * that already attached it keep their own reference, and the bytes are left to the
 * orphaned-upload sweep (an object may be shared by equal files). 404 when it is not there.
 */
export async function deleteUpload({ ctx, input }: { ctx: ServiceContext; input: { uploadId: string } }): Promise<{ id: string; deleted: true }> {
  return withTransaction(ctx, async (tx) => {
    const row = await findUpload(tx, input.uploadId, { forUpdate: true });
    await tx.db.delete(uploads).where(eq(uploads.id, row.id));
    await recordAudit(tx, { action: 'upload.deleted', targetType: 'upload', targetId: row.id, details: { sizeBytes: row.sizeBytes } });
    return { id: row.id, deleted: true as const };
  });
}
