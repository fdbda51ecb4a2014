import { createHash } from 'node:crypto';
import type { Context } from 'hono';
import { Hono } from 'hono';
import { MAX_FILE_BYTES } from '../../../domain/attachments/file-input.ts';
import { ValidationError } from '../../../domain/errors.ts';
import { assertHasScopes } from '../../../domain/scopes.ts';
import { MAX_UPLOAD_LIFETIME_SECONDS, MIN_UPLOAD_LIFETIME_SECONDS } from '../../../domain/public-shapes/uploads.ts';
import { deleteCompatFile, downloadCompatFile, getCompatFile, listCompatFiles, uploadCompatFile } from '../services/files.ts';
import type { AppDeps } from '../../../api/deps.ts';
import type { AppEnv } from '../../../api/env.ts';
import { readMultipart, type MultipartLimits, type MultipartPart } from '../../../api/multipart.ts';
import { contentDisposition } from '../../../api/routes/session-files.ts';
import { needs } from './auth.ts';
import { paging } from './requests.ts';
import { deduped } from './retries.ts';

type FilePart = { filename: string; mimeType: string; bytes: Uint8Array; expiresInSeconds?: number };

/**
 * An upload's body: one `file` part of at most the upload limit (spec 3: 10 MiB per file) and
 * `expires_in_seconds` (an integer: 32 bytes is plenty), with 64 KiB for the multipart framing.
 */
export const FILE_UPLOAD_LIMITS: MultipartLimits = {
  maxBodyBytes: MAX_FILE_BYTES + 64 * 1024,
  maxFiles: 1,
  maxFileBytes: MAX_FILE_BYTES,
  maxFields: 1,
  maxFieldBytes: 32,
};

/**
 * `client.beta.files` and `client.files`: upload (multipart `file`, optional
 * `expires_in_seconds`), list (`scope_id` for a session's workspace files, `ids[]`), metadata,
 * download, delete. Scopes as the native uploads' (`run:create` to upload or delete, `run:read`
 * to read; a session's workspace files also `session:read`).
 */
export function compatFileRoutes(deps: AppDeps) {
  return new Hono<AppEnv>()
    .post('/files', needs('run:create'), async (c) => {
      const part = await filePartOf(c);
      return deduped(c, (ctx) => uploadCompatFile({ ctx, deps, input: part }), { requestHash: partHash(part) });
    })
    .get('/files', needs('run:read'), async (c) => {
      const scopeId = c.req.query('scope_id');
      if (scopeId) assertHasScopes(c.var.actor.scopes, ['session:read']);
      const ids = [...(c.req.queries('ids[]') ?? []), ...(c.req.queries('ids') ?? [])];
      return c.json(await listCompatFiles({ ctx: c.var.ctx, deps, input: { ...paging(c), scopeId: scopeId || undefined, ids } }));
    })
    .get('/files/:fileId', needs('run:read'), async (c) => {
      scopesOfRead(c);
      return c.json(await getCompatFile({ ctx: c.var.ctx, deps, input: { fileId: c.req.param('fileId') } }));
    })
    .get('/files/:fileId/content', needs('run:read'), async (c) => {
      scopesOfRead(c);
      const file = await downloadCompatFile({ ctx: c.var.ctx, deps, input: { fileId: c.req.param('fileId') } });
      return new Response(new Uint8Array(file.bytes), {
        status: 200,
        headers: {
          'content-type': 'application/octet-stream',
          'content-disposition': contentDisposition(file.filename),
          'content-length': String(file.bytes.length),
          'cache-control': 'no-store',
          'x-content-type-options': 'nosniff',
          'request-id': c.var.requestId,
        },
      });
    })
    .delete('/files/:fileId', needs('run:create'), async (c) => deduped(c, (ctx) => deleteCompatFile({ ctx, input: { fileId: c.req.param('fileId') } })));
}

/** A session's workspace files need what the native session-files routes need. */
function scopesOfRead(c: Context<AppEnv>) {
  if (c.req.param('fileId')?.startsWith('wsf_')) assertHasScopes(c.var.actor.scopes, ['session:read']);
}

/**
 * The one `file` part (its filename and type as sent) and `expires_in_seconds`, read within
 * `FILE_UPLOAD_LIMITS`; any other part is a 400 naming it as soon as it begins.
 */
async function filePartOf(c: Context<AppEnv>): Promise<FilePart> {
  if (!/^multipart\/form-data\b/i.test(c.req.header('content-type') ?? ''))
    throw new ValidationError('The body must be multipart/form-data with the file as its "file" part', { path: 'body' });
  const parts = await readMultipart(c, FILE_UPLOAD_LIMITS, ({ name, kind }) => {
    if ((name === 'file' && kind === 'file') || (name === 'expires_in_seconds' && kind === 'field')) return;
    throw new ValidationError(`${name}: not a field of a file upload (one "file" part, optional "expires_in_seconds")`, { path: `body.${name}` });
  });
  let file: Extract<MultipartPart, { kind: 'file' }> | undefined;
  let expiresInSeconds: number | undefined;
  for (const part of parts) {
    if (part.kind === 'file') file = part;
    else {
      expiresInSeconds = Number(part.value);
      if (!Number.isInteger(expiresInSeconds) || expiresInSeconds < MIN_UPLOAD_LIFETIME_SECONDS || expiresInSeconds > MAX_UPLOAD_LIFETIME_SECONDS) {
        throw new ValidationError(`expires_in_seconds must be an integer from ${MIN_UPLOAD_LIFETIME_SECONDS} to ${MAX_UPLOAD_LIFETIME_SECONDS}`, {
          path: 'body.expires_in_seconds',
        });
      }
    }
  }
  if (!file) throw new ValidationError('file: the upload needs one "file" part', { path: 'body.file' });
  return { filename: file.filename, mimeType: file.mimeType, bytes: file.bytes, ...(expiresInSeconds !== undefined ? { expiresInSeconds } : {}) };
}

/** A hash of the parts (a retry's multipart boundary differs; its parts do not). */
const partHash = (part: FilePart) =>
  createHash('sha256')
    .update(`${part.filename}\n${part.mimeType}\n${part.expiresInSeconds ?? ''}\n`)
    .update(part.bytes)
    .digest('hex');
