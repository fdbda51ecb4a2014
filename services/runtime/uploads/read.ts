import { and, eq, inArray } from 'drizzle-orm';
import { uploads } from '../../../db/schema/index.ts';
import { toPage, type Page } from '../../../domain/pagination.ts';
import { NotFoundError } from '../../../domain/errors.ts';
import { readStoredFile } from '../attachments/index.ts';
import { uploadIsLive, type UploadRow } from '../attachments/index.ts';
import { keysetPage } from '../../kernel/keyset.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import type { UploadDeps } from './create.ts';
import { toUploadResponse, type PublicUpload } from './public.ts';

/** An upload of the actor's project that has not expired, or 404. */
export async function findUpload(ctx: ServiceContext, uploadId: string, options: { forUpdate?: boolean } = {}): Promise<UploadRow> {
  const actor = requireActor(ctx);
  const query = ctx.db
    .select()
    .from(uploads)
    .where(and(eq(uploads.id, uploadId), eq(uploads.projectId, actor.projectId), uploadIsLive(ctx.clock.now())));
  const [row] = options.forUpdate ? await query.for('update') : await query;
  if (!row) throw new NotFoundError('No upload with that id in this project');
  return row;
}

/** The actor's project's unexpired uploads among these ids (the others are left out). */
export async function findLiveUploads({ ctx, input }: { ctx: ServiceContext; input: { uploadIds: readonly string[] } }): Promise<UploadRow[]> {
  if (input.uploadIds.length === 0) return [];
  return ctx.db
    .select()
    .from(uploads)
    .where(and(eq(uploads.projectId, requireActor(ctx).projectId), inArray(uploads.id, [...input.uploadIds]), uploadIsLive(ctx.clock.now())));
}

export async function getUpload({ ctx, input }: { ctx: ServiceContext; input: { uploadId: string } }): Promise<PublicUpload> {
  return toUploadResponse(await findUpload(ctx, input.uploadId));
}

/** The project's uploads that have not expired, newest first (keyset over `(createdAt, id)`). */
export async function listUploads({ ctx, input }: { ctx: ServiceContext; input: { limit: number; cursor?: string | undefined } }): Promise<Page<PublicUpload>> {
  const actor = requireActor(ctx);
  const page = keysetPage({ createdAt: uploads.createdAt, id: uploads.id }, input.cursor, 'desc');
  const rows = await ctx.db
    .select()
    .from(uploads)
    .where(and(eq(uploads.projectId, actor.projectId), uploadIsLive(ctx.clock.now()), page.after))
    .orderBy(...page.orderBy)
    .limit(input.limit + 1);
  return toPage(rows, input.limit, toUploadResponse);
}

/** An upload's bytes, checked against its recorded length and SHA-256 first (`readStoredFile`). */
export async function readUploadBytes({
  ctx,
  deps,
  input,
}: {
  ctx: ServiceContext;
  deps: UploadDeps;
  input: { uploadId: string };
}): Promise<{ upload: PublicUpload; bytes: Buffer }> {
  const row = await findUpload(ctx, input.uploadId);
  return { upload: toUploadResponse(row), bytes: await readStoredFile(ctx, deps, row) };
}
