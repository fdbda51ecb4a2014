import { Hono } from 'hono';
import * as v from 'valibot';
import { ValidationError } from '../../domain/errors.ts';
import { downloadWorkspaceFile } from '../../services/runtime/workspace-files/index.ts';
import { listWorkspaceFiles } from '../../services/runtime/workspace-files/index.ts';
import type { AppDeps } from '../deps.ts';
import type { AppEnv } from '../env.ts';
import { route } from '../openapi/route-doc.ts';
import { Uuid, validParams } from '../validation.ts';
import { WorkspaceFileListShape } from '../../domain/public-shapes/sessions.ts';

const SessionParams = v.object({ projectId: Uuid, sessionId: Uuid });

/** Files of a session's latest workspace backup (spec 2 "Sessions, runs, files"); `session:read`. */
export function sessionFileRoutes(deps: AppDeps) {
  return new Hono<AppEnv>()
    .get(
      '/projects/:projectId/sessions/:sessionId/files',
      route({
        summary: "List the files of the session's latest workspace backup",
        scopes: ['session:read'],
        params: SessionParams,
        responses: { 200: { description: 'The files', schema: WorkspaceFileListShape } },
      }),
      async (c) => {
        const { sessionId } = validParams(c, SessionParams);
        return c.json(await listWorkspaceFiles({ ctx: c.var.ctx, keyring: deps.keyring, policy: deps.storagePolicy, input: { sessionId } }));
      },
    )
    .get(
      '/projects/:projectId/sessions/:sessionId/files/*',
      route({
        summary: 'Download one workspace file (the rest of the path is the file path)',
        scopes: ['session:read'],
        params: SessionParams,
        responses: { 200: { description: 'The file bytes', content: 'file' } },
      }),
      async (c) => {
        const { sessionId } = validParams(c, SessionParams);
        const file = await downloadWorkspaceFile({
          ctx: c.var.ctx,
          keyring: deps.keyring,
          policy: deps.storagePolicy,
          input: { sessionId, segments: pathSegments(new URL(c.req.url).pathname, sessionId) },
        });
        return new Response(new Uint8Array(file.bytes), {
          status: 200,
          headers: {
            'content-type': 'application/octet-stream',
            'content-disposition': contentDisposition(file.name),
            'content-length': String(file.bytes.length),
            'cache-control': 'no-store',
            'x-content-type-options': 'nosniff',
          },
        });
      },
    );
}

/** The raw segments after `/sessions/{id}/files/`, each percent-decoded on its own. */
function pathSegments(pathname: string, sessionId: string): string[] {
  const marker = `/sessions/${sessionId}/files/`;
  const at = pathname.toLowerCase().indexOf(marker.toLowerCase());
  const rest = at === -1 ? '' : pathname.slice(at + marker.length);
  try {
    return rest.split('/').map((segment) => decodeURIComponent(segment));
  } catch {
    throw new ValidationError('The file path is not validly percent-encoded', { path: 'path' });
  }
}

/** `attachment` with an ASCII fallback and the exact UTF-8 name (RFC 6266 / 8187). */
export function contentDisposition(name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}
