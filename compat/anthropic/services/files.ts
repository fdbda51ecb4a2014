import { ATTACHMENT_FILE_PREFIX } from '../domain/content.ts';
import { fileRefOf, mimeTypeOfName, renderFile, workspaceFileId, type CmaFile, type FileRef } from '../domain/files.ts';
import { isOurId } from '../domain/ids.ts';
import { NotFoundError, ValidationError } from '../../../domain/errors.ts';
import type { UploadRow } from '../../../services/runtime/attachments/index.ts';
import { findAttachment as findCoreAttachment } from '../../../services/runtime/attachments/index.ts';
import { readStoredFile } from '../../../services/runtime/attachments/index.ts';
import { PUBLIC_STORAGE_ONLY } from '../../../services/runtime/attachments/index.ts';
import type { ServiceContext } from '../../../services/kernel/service-context.ts';
import { createUpload, type UploadDeps } from '../../../services/runtime/uploads/index.ts';
import { deleteUpload } from '../../../services/runtime/uploads/index.ts';
import { findLiveUploads, findUpload, listUploads } from '../../../services/runtime/uploads/index.ts';
import { downloadWorkspaceFile } from '../../../services/runtime/workspace-files/index.ts';
import { listWorkspaceFiles } from '../../../services/runtime/workspace-files/index.ts';

/**
 * The Anthropic-compatible Files API (`/v1/files`) over our standalone uploads, plus two
 * read-only kinds: a turn's attachments and a session's workspace files (`scope_id`). Ids:
 * `compat/anthropic/domain/files.ts`.
 */

const notFound = () => new NotFoundError('No file with that id in this project');

const uploadFile = (row: UploadRow): CmaFile =>
  renderFile({
    id: row.id,
    filename: row.filename,
    mimeType: row.contentType,
    sizeBytes: row.sizeBytes,
    createdAt: row.createdAt.toISOString(),
    expiresAt: row.expiresAt?.toISOString() ?? null,
    sessionId: null,
  });

/** An upload through our upload rules; the part's type when given, else the one of its name. */
export async function uploadCompatFile({
  ctx,
  deps,
  input,
}: {
  ctx: ServiceContext;
  deps: UploadDeps;
  input: { filename: string; mimeType: string; bytes: Uint8Array; expiresInSeconds?: number | undefined };
}): Promise<CmaFile> {
  const contentType = input.mimeType === '' || input.mimeType === 'application/octet-stream' ? mimeTypeOfName(input.filename) : input.mimeType;
  const created = await createUpload({
    ctx,
    deps,
    input: {
      name: input.filename,
      contentType,
      dataBase64: Buffer.from(input.bytes).toString('base64'),
      ...(input.expiresInSeconds !== undefined ? { expiresInSeconds: input.expiresInSeconds } : {}),
    },
  });
  return renderFile({
    id: created.id,
    filename: created.name,
    mimeType: created.contentType,
    sizeBytes: created.sizeBytes,
    createdAt: created.createdAt,
    expiresAt: created.expiresAt,
    sessionId: null,
  });
}

/**
 * Uploads newest first (our keyset cursor as `page`); with `scope_id`, the files of that session's
 * latest workspace backup (one page); with `ids`, those uploads (one page, unknown ids left out).
 */
export async function listCompatFiles({
  ctx,
  deps,
  input,
}: {
  ctx: ServiceContext;
  deps: UploadDeps;
  input: { limit: number; page: string | undefined; scopeId: string | undefined; ids: string[] };
}): Promise<{ data: CmaFile[]; next_page: string | null }> {
  if (input.scopeId !== undefined) {
    if (!isOurId(input.scopeId)) throw new NotFoundError('No session with that id in this project');
    const listed = await listWorkspaceFiles({
      ctx,
      keyring: deps.keyring,
      policy: deps.storagePolicy ?? PUBLIC_STORAGE_ONLY,
      input: { sessionId: input.scopeId },
    });
    return { data: listed.data.map((file) => workspaceFile(input.scopeId!, file, listed.backedUpAt!)), next_page: null };
  }
  if (input.ids.length > 0) {
    if (input.ids.length > 100) throw new ValidationError('ids: at most 100', { path: 'query.ids' });
    const ids = input.ids.filter(isOurId).map((id) => id.toLowerCase());
    const rows = await findLiveUploads({ ctx, input: { uploadIds: ids } });
    return { data: rows.map(uploadFile), next_page: null };
  }
  const page = await listUploads({ ctx, input: { limit: Math.min(input.limit, 200), cursor: input.page } });
  return {
    data: page.data.map((upload) =>
      renderFile({
        id: upload.id,
        filename: upload.name,
        mimeType: upload.contentType,
        sizeBytes: upload.sizeBytes,
        createdAt: upload.createdAt,
        expiresAt: upload.expiresAt,
        sessionId: null,
      }),
    ),
    next_page: page.pageInfo.nextCursor,
  };
}

const workspaceFile = (sessionId: string, file: { name: string; path: string; sizeBytes: number }, backedUpAt: string): CmaFile =>
  renderFile({
    id: workspaceFileId(sessionId, file.path),
    filename: file.name,
    mimeType: mimeTypeOfName(file.name),
    sizeBytes: file.sizeBytes,
    createdAt: backedUpAt,
    expiresAt: null,
    sessionId,
  });

function refOf(id: string): FileRef {
  const ref = fileRefOf(id);
  if (!ref) throw notFound();
  return ref;
}

/** A turn's attachment of this project (its session not deleted); the core's 404 says what this API's does. */
const findAttachment = (ctx: ServiceContext, attachmentId: string) => findCoreAttachment({ ctx, input: { attachmentId } });

export async function getCompatFile({ ctx, deps, input }: { ctx: ServiceContext; deps: UploadDeps; input: { fileId: string } }): Promise<CmaFile> {
  const ref = refOf(input.fileId);
  switch (ref.kind) {
    case 'upload':
      return uploadFile(await findUploadOr404(ctx, ref.uploadId));
    case 'attachment': {
      const row = await findAttachment(ctx, ref.attachmentId);
      return renderFile({
        id: `${ATTACHMENT_FILE_PREFIX}${row.id}`,
        filename: row.filename,
        mimeType: row.contentType,
        sizeBytes: row.sizeBytes,
        createdAt: row.createdAt.toISOString(),
        expiresAt: null,
        sessionId: row.sessionId,
      });
    }
    case 'workspace': {
      const listed = await listWorkspaceFiles({
        ctx,
        keyring: deps.keyring,
        policy: deps.storagePolicy ?? PUBLIC_STORAGE_ONLY,
        input: { sessionId: ref.sessionId },
      });
      const file = listed.data.find((entry) => entry.path === ref.path);
      if (!file) throw notFound();
      return workspaceFile(ref.sessionId, file, listed.backedUpAt!);
    }
  }
}

/** A file's bytes: an upload's or attachment's checked against its SHA-256, a workspace file's verified from its backup. */
export async function downloadCompatFile({
  ctx,
  deps,
  input,
}: {
  ctx: ServiceContext;
  deps: UploadDeps;
  input: { fileId: string };
}): Promise<{ filename: string; bytes: Buffer }> {
  const ref = refOf(input.fileId);
  switch (ref.kind) {
    case 'upload': {
      const row = await findUploadOr404(ctx, ref.uploadId);
      return { filename: row.filename, bytes: await readStoredFile(ctx, deps, row) };
    }
    case 'attachment': {
      const row = await findAttachment(ctx, ref.attachmentId);
      return { filename: row.filename, bytes: await readStoredFile(ctx, deps, row) };
    }
    case 'workspace': {
      const file = await downloadWorkspaceFile({
        ctx,
        keyring: deps.keyring,
        policy: deps.storagePolicy ?? PUBLIC_STORAGE_ONLY,
        input: { sessionId: ref.sessionId, segments: ref.path.split('/') },
      });
      return { filename: file.name, bytes: file.bytes };
    }
  }
}

/** Deletes an upload; attachments and workspace files are read-only here (400). */
export async function deleteCompatFile({ ctx, input }: { ctx: ServiceContext; input: { fileId: string } }): Promise<{ id: string; type: 'file_deleted' }> {
  const ref = refOf(input.fileId);
  if (ref.kind !== 'upload')
    throw new ValidationError(`${ref.kind === 'attachment' ? "A turn's attachments" : "A session's workspace files"} are read-only`, { path: 'path.file_id' });
  await findUploadOr404(ctx, ref.uploadId);
  await deleteUpload({ ctx, input: { uploadId: ref.uploadId } });
  return { id: input.fileId, type: 'file_deleted' };
}

async function findUploadOr404(ctx: ServiceContext, uploadId: string): Promise<UploadRow> {
  try {
    return await findUpload(ctx, uploadId);
  } catch (error) {
    if (error instanceof NotFoundError) throw notFound();
    throw error;
  }
}
