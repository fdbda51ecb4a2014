import { and, asc, eq, inArray, isNull } from 'drizzle-orm';
import { attachments, sessions } from '../../../db/schema/index.ts';
import type { AttachmentMetadata } from '../../../domain/attachments/metadata.ts';
import { NotFoundError } from '../../../domain/errors.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';

export type AttachmentRow = typeof attachments.$inferSelect;

/** The files each run's turn carried, in their order, as their public metadata. */
export async function attachmentsOfRuns({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { runIds: readonly string[] };
}): Promise<Map<string, AttachmentMetadata[]>> {
  const byRun = new Map<string, AttachmentMetadata[]>();
  if (input.runIds.length === 0) return byRun;
  const files = await ctx.db
    .select()
    .from(attachments)
    .where(and(eq(attachments.projectId, requireActor(ctx).projectId), inArray(attachments.runId, [...input.runIds])))
    .orderBy(asc(attachments.runId), asc(attachments.position));
  for (const file of files) {
    const list = byRun.get(file.runId) ?? [];
    list.push({
      id: file.id,
      filename: file.filename,
      contentType: file.contentType,
      sizeBytes: file.sizeBytes,
      sha256: file.sha256,
      createdAt: file.createdAt.toISOString(),
    });
    byRun.set(file.runId, list);
  }
  return byRun;
}

/** A turn's attachment of the actor's project whose session is not deleted, or 404. */
export async function findAttachment({ ctx, input }: { ctx: ServiceContext; input: { attachmentId: string } }): Promise<AttachmentRow> {
  const [row] = await ctx.db
    .select({ attachment: attachments })
    .from(attachments)
    .innerJoin(sessions, eq(sessions.id, attachments.sessionId))
    .where(and(eq(attachments.id, input.attachmentId), eq(attachments.projectId, requireActor(ctx).projectId), isNull(sessions.deletedAt)));
  if (!row) throw new NotFoundError('No file with that id in this project');
  return row.attachment;
}
