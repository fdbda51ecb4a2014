/**
 * Attachment metadata as transcripts and run messages show it (spec 1 "Session, run and
 * attachments"): never bytes or base64. Stored inside the user message's content, so the
 * transcript carries it without a join, and rendered for the model as workspace paths only.
 */
export type AttachmentMetadata = {
  id: string;
  filename: string;
  contentType: string;
  sizeBytes: number;
  sha256: string;
  createdAt: string;
};

/** Where the runtime writes a run's attachments inside the workspace (spec 2 rule 4). */
export function attachmentWorkspacePath(runId: string, filename: string): string {
  return `.svc/attachments/${runId}/${filename}`;
}

/** Reads the metadata list back from stored message content; anything malformed is dropped. */
export function attachmentsOf(content: Record<string, unknown>): AttachmentMetadata[] {
  const list = Array.isArray(content.attachments) ? content.attachments : [];
  return list.flatMap((item: unknown) => {
    if (typeof item !== 'object' || item === null) return [];
    const { id, filename, contentType, sizeBytes, sha256, createdAt } = item as Record<string, unknown>;
    if (
      typeof id !== 'string' ||
      typeof filename !== 'string' ||
      typeof contentType !== 'string' ||
      typeof sizeBytes !== 'number' ||
      typeof sha256 !== 'string' ||
      typeof createdAt !== 'string'
    )
      return [];
    return [{ id, filename, contentType, sizeBytes, sha256, createdAt }];
  });
}

/**
 * What the model reads about a turn's files: their workspace paths and safe metadata, appended
 * to the user's text. The content itself is in the workspace, for the sandbox tools to open.
 */
export function describeAttachmentsForModel(runId: string, attachments: readonly AttachmentMetadata[]): string {
  if (attachments.length === 0) return '';
  const lines = attachments.map(
    (file) => `- ${attachmentWorkspacePath(runId, file.filename)} (${file.contentType}, ${file.sizeBytes} bytes, sha256 ${file.sha256})`,
  );
  return `\n\nAttached files, copied into the workspace:\n${lines.join('\n')}`;
}
