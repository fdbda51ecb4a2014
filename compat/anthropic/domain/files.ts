import { FILE_KINDS, OCTET_STREAM } from '../../../domain/attachments/file-kinds.ts';
import { extensionOf } from '../../../domain/attachments/file-name.ts';
import { ATTACHMENT_FILE_PREFIX } from './content.ts';
import { isOurId } from './ids.ts';

/**
 * File ids of the Anthropic-compatible Files API (docs/decisions/anthropic-compat-files.md):
 * an upload is its UUID; a turn's attachment is `att_<attachmentId>` and a file of a session's
 * latest workspace backup `wsf_<base64url(sessionId + "\n" + path)>`, both read-only.
 */
export type FileRef =
  { kind: 'upload'; uploadId: string } | { kind: 'attachment'; attachmentId: string } | { kind: 'workspace'; sessionId: string; path: string };

const WORKSPACE_PREFIX = 'wsf_';

export const workspaceFileId = (sessionId: string, path: string) => `${WORKSPACE_PREFIX}${Buffer.from(`${sessionId}\n${path}`).toString('base64url')}`;

/** What a file id names, or null when it cannot be one of ours. */
export function fileRefOf(id: string): FileRef | null {
  if (isOurId(id)) return { kind: 'upload', uploadId: id.toLowerCase() };
  if (id.startsWith(ATTACHMENT_FILE_PREFIX) && isOurId(id.slice(ATTACHMENT_FILE_PREFIX.length)))
    return { kind: 'attachment', attachmentId: id.slice(ATTACHMENT_FILE_PREFIX.length).toLowerCase() };
  if (!id.startsWith(WORKSPACE_PREFIX)) return null;
  const text = Buffer.from(id.slice(WORKSPACE_PREFIX.length), 'base64url').toString('utf8');
  const cut = text.indexOf('\n');
  if (cut === -1 || !isOurId(text.slice(0, cut)) || text.slice(cut + 1) === '') return null;
  return { kind: 'workspace', sessionId: text.slice(0, cut).toLowerCase(), path: text.slice(cut + 1) };
}

/** A media type for a file known only by its name: its kind's, else `application/octet-stream`. */
export function mimeTypeOfName(name: string): string {
  const extension = extensionOf(name)?.toLowerCase();
  return (extension && Object.hasOwn(FILE_KINDS, extension) && FILE_KINDS[extension]?.mediaType) || OCTET_STREAM;
}

/** `BetaFileMetadata`. */
export function renderFile(file: {
  id: string;
  filename: string;
  mimeType: string;
  sizeBytes: number;
  createdAt: string;
  expiresAt: string | null;
  sessionId: string | null;
}) {
  return {
    id: file.id,
    type: 'file' as const,
    filename: file.filename,
    mime_type: file.mimeType,
    size_bytes: file.sizeBytes,
    created_at: file.createdAt,
    downloadable: true,
    expires_at: file.expiresAt,
    scope: file.sessionId ? { type: 'session' as const, id: file.sessionId } : null,
  };
}
export type CmaFile = ReturnType<typeof renderFile>;
