import { Hono } from 'hono';
import * as v from 'valibot';
import { MAX_TURN_BODY_BYTES } from '../../domain/attachments/file-input.ts';
import { ListQuery } from '../../domain/pagination.ts';
import { CreateUploadInput, PublicUploadShape, UploadDeletedShape, UploadPageShape } from '../../domain/public-shapes/uploads.ts';
import { createUpload } from '../../services/runtime/uploads/index.ts';
import { deleteUpload } from '../../services/runtime/uploads/index.ts';
import { getUpload, listUploads, readUploadBytes } from '../../services/runtime/uploads/index.ts';
import type { AppDeps } from '../deps.ts';
import type { AppEnv } from '../env.ts';
import { route } from '../openapi/route-doc.ts';
import { Uuid, validBody, validParams, validQuery } from '../validation.ts';
import { contentDisposition } from './session-files.ts';

const UploadParams = v.object({ projectId: Uuid, uploadId: Uuid });

/**
 * Standalone uploads (docs/decisions/standalone-uploads.md): a file stored once and named later by id in
 * a turn's `files` (`{uploadId}`). Uploading and deleting need `run:create` (what a turn with
 * files needs); reading needs `run:read`.
 */
export function uploadRoutes(deps: AppDeps) {
  return new Hono<AppEnv>()
    .post(
      '/projects/:projectId/uploads',
      // The bytes go to storage before the transaction that records the row.
      route({
        summary: 'Upload a file for later turns (one file input item)',
        scopes: ['run:create'],
        body: CreateUploadInput,
        responses: { 201: { description: 'The upload', schema: PublicUploadShape } },
        transaction: 'deferred',
      }),
      async (c) => {
        const body = await validBody(c, CreateUploadInput, { maxBytes: MAX_TURN_BODY_BYTES });
        return c.json(await createUpload({ ctx: c.var.ctx, deps, input: body }), 201);
      },
    )
    .get(
      '/projects/:projectId/uploads',
      route({
        summary: "List the project's uploads, newest first",
        scopes: ['run:read'],
        query: ListQuery,
        responses: { 200: { description: 'A page of uploads', schema: UploadPageShape } },
      }),
      async (c) => {
        return c.json(await listUploads({ ctx: c.var.ctx, input: validQuery(c, ListQuery) }));
      },
    )
    .get(
      '/projects/:projectId/uploads/:uploadId',
      route({
        summary: "An upload's metadata",
        scopes: ['run:read'],
        params: UploadParams,
        responses: { 200: { description: 'The upload', schema: PublicUploadShape } },
      }),
      async (c) => {
        const { uploadId } = validParams(c, UploadParams);
        return c.json(await getUpload({ ctx: c.var.ctx, input: { uploadId } }));
      },
    )
    .get(
      '/projects/:projectId/uploads/:uploadId/content',
      route({
        summary: "Download an upload's bytes (checked against its SHA-256 first)",
        scopes: ['run:read'],
        params: UploadParams,
        responses: { 200: { description: 'The file bytes', content: 'file' } },
      }),
      async (c) => {
        const { uploadId } = validParams(c, UploadParams);
        const { upload, bytes } = await readUploadBytes({ ctx: c.var.ctx, deps, input: { uploadId } });
        return new Response(new Uint8Array(bytes), {
          status: 200,
          headers: {
            'content-type': 'application/octet-stream',
            'content-disposition': contentDisposition(upload.name),
            'content-length': String(bytes.length),
            'cache-control': 'no-store',
            'x-content-type-options': 'nosniff',
          },
        });
      },
    )
    .delete(
      '/projects/:projectId/uploads/:uploadId',
      route({
        summary: 'Delete an upload (turns that attached it keep their copy)',
        scopes: ['run:create'],
        params: UploadParams,
        responses: { 200: { description: '`{id, deleted: true}`', schema: UploadDeletedShape } },
      }),
      async (c) => {
        const { uploadId } = validParams(c, UploadParams);
        return c.json(await deleteUpload({ ctx: c.var.ctx, input: { uploadId } }));
      },
    );
}
