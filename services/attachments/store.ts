import { createHash, randomUUID } from 'node:crypto';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { eq } from 'drizzle-orm';
import { agentVersions, attachments } from '../../db/schema/index.ts';
import type { AgentConfig } from '../../domain/agent-config/index.ts';
import { sandboxCapabilityProblem, type AcceptedFile } from '../../domain/attachments/file-input.ts';
import type { AttachmentMetadata } from '../../domain/attachments/metadata.ts';
import { ConflictError, ValidationError } from '../../domain/errors.ts';
import { tenantRoot } from '../../domain/storage/paths.ts';
import type { ServiceContext } from '../service-context.ts';
import type { CredentialKeyring } from '../credentials/keyring.ts';
import { findDefaultStorageProvider } from '../storage-providers/load.ts';
import { s3ClientFor } from '../storage-providers/s3-client.ts';

export type StoredAttachment = AttachmentMetadata & { fileClass: 'text' | 'binary'; storageProviderId: string; objectKey: string };

/**
 * Puts a turn's files into object storage before its run is queued (spec 2 "File input item"
 * rules 2-3): the pinned version's sandbox must be able to open them, a default storage
 * connection and credential encryption must exist (all 400 otherwise), then each file goes to
 * `run-files/<attachmentId>` under the project's tenant path with a SHA-256 we compute. Bytes
 * never touch the database. Objects of a transaction that later rolls back stay behind unused.
 */
export async function storeAttachments(
  tx: ServiceContext,
  input: { files: readonly AcceptedFile[]; organizationId: string; projectId: string; agentVersionId: string; keyring: CredentialKeyring },
): Promise<StoredAttachment[]> {
  if (input.files.length === 0) return [];
  const [version] = await tx.db.select({ config: agentVersions.config }).from(agentVersions).where(eq(agentVersions.id, input.agentVersionId));
  const sandbox = (version!.config as unknown as AgentConfig).sandbox;
  const problem = sandboxCapabilityProblem(input.files, sandbox);
  if (problem) throw new ValidationError(problem, { path: 'body.files' });
  const provider = await findDefaultStorageProvider(tx, input.organizationId);
  if (!provider) throw new ValidationError('Files need a default storage provider in this organization; connect one first', { path: 'body.files' });
  if (!input.keyring.configured) throw new ValidationError('Files need platform credential encryption, which this server has not configured', { path: 'body.files' });

  const root = tenantRoot({ providerPrefix: provider.prefix, organizationId: input.organizationId, projectId: input.projectId });
  const client = s3ClientFor(provider, input.keyring);
  try {
    const stored: StoredAttachment[] = [];
    for (const file of input.files) {
      const bytes = Buffer.from(file.dataBase64, 'base64');
      const id = randomUUID();
      const objectKey = `${root}run-files/${id}`;
      const sha256 = createHash('sha256').update(bytes).digest('hex');
      try {
        await client.send(new PutObjectCommand({ Bucket: provider.bucket, Key: objectKey, Body: bytes, ContentLength: bytes.length, ContentType: file.contentType }));
      } catch (error) {
        tx.logger.warn('attachment upload failed', { providerId: provider.id, errorName: (error as Error).name, requestId: tx.requestId });
        throw new ConflictError(`Storage provider "${provider.key}" cannot store files right now; nothing was queued`);
      }
      stored.push({ id, filename: file.name, contentType: file.contentType, fileClass: file.fileClass, sizeBytes: bytes.length, sha256, createdAt: tx.clock.now().toISOString(), storageProviderId: provider.id, objectKey });
    }
    return stored;
  } finally {
    client.destroy();
  }
}

/** The attachment rows of a queued run, in the caller's transaction. */
export async function recordAttachments(tx: ServiceContext, input: { organizationId: string; projectId: string; sessionId: string; runId: string; stored: readonly StoredAttachment[] }): Promise<void> {
  if (input.stored.length === 0) return;
  await tx.db.insert(attachments).values(
    input.stored.map((file, position) => ({
      id: file.id,
      organizationId: input.organizationId,
      projectId: input.projectId,
      sessionId: input.sessionId,
      runId: input.runId,
      position,
      filename: file.filename,
      contentType: file.contentType,
      fileClass: file.fileClass,
      sizeBytes: file.sizeBytes,
      sha256: file.sha256,
      storageProviderId: file.storageProviderId,
      objectKey: file.objectKey,
      createdAt: new Date(file.createdAt),
    })),
  );
}

/** Metadata only: what the transcript keeps of a stored attachment. */
export const attachmentMetadataOf = (file: StoredAttachment): AttachmentMetadata => ({
  id: file.id,
  filename: file.filename,
  contentType: file.contentType,
  sizeBytes: file.sizeBytes,
  sha256: file.sha256,
  createdAt: file.createdAt,
});
