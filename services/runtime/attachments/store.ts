import { createHash, randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { agentVersions, attachments } from '../../../db/schema/index.ts';
import type { AgentConfig } from '../../../domain/agent-config/index.ts';
import { isUploadRef, sandboxCapabilityProblem, turnFileSetProblem, type AcceptedFile, type TurnFileInput } from '../../../domain/attachments/file-input.ts';
import type { FileClass } from '../../../domain/attachments/file-kinds.ts';
import type { AttachmentMetadata } from '../../../domain/attachments/metadata.ts';
import { ConflictError, ValidationError } from '../../../domain/errors.ts';
import { tenantRoot } from '../../../domain/storage/paths.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import type { CredentialKeyring } from '../../kernel/credentials/index.ts';
import { findDefaultStorageProvider } from '../../configuration/storage-providers/index.ts';
import { putObjectBytes } from '../../../adapters/storage/objects.ts';
import { s3ClientFor, type StorageEndpointPolicy } from '../../configuration/storage-providers/index.ts';
import { storageFailure } from '../../configuration/storage-providers/index.ts';
import type { S3Client } from '../../../adapters/storage/s3-client.ts';
import type { StorageProviderRow } from '../../configuration/storage-providers/index.ts';
import { findTurnUploads } from './find-uploads.ts';

/** What confirming a turn's uploads needs of its session. */
type TurnSession = { organizationId: string; projectId: string; agentVersionId: string };

/** The storage policy where a caller passes none: public endpoints only. */
export const PUBLIC_STORAGE_ONLY: StorageEndpointPolicy = { allowPrivateNetwork: false };

/** Where a project's uploaded files live, below its tenant root; the sweep lists this folder. */
export const RUN_FILES_FOLDER = 'run-files/';

/** The object key of a file: its SHA-256 under the project's `run-files/`, so equal bytes share one object. */
export const runFileObjectKey = (root: string, sha256: string) => `${root}${RUN_FILES_FOLDER}${sha256}`;

/** One uploaded file: what its attachment row will record. */
export type UploadedFile = { filename: string; contentType: string; fileClass: FileClass; sizeBytes: number; sha256: string; objectKey: string };

/**
 * A turn's files once their bytes are in object storage and before any row names them: what the
 * transaction records. `agentVersionId` is the version whose sandbox was checked, and
 * `storageProviderId` the connection the objects went to (the organization's default then).
 */
export type UploadedAttachments = {
  organizationId: string;
  projectId: string;
  agentVersionId: string;
  storageProviderId: string;
  files: UploadedFile[];
};

export type StoredAttachment = AttachmentMetadata & { fileClass: FileClass; storageProviderId: string; objectKey: string };

/**
 * Checks a turn's files and puts their bytes into object storage (spec 2 "File input item"
 * rules 2-3), before the transaction that queues the run opens: uploads named by id are resolved
 * (a project's, not expired; 400 otherwise) and the names and total are checked across every
 * file; the agent version's sandbox must be able to open them, a default storage connection and
 * credential encryption must exist (all 400 otherwise); then each inline file goes to
 * `run-files/<sha256>` under the project's tenant path with a SHA-256 we compute, and an upload
 * is referenced where it already is (its connection must still be the default: 409 otherwise).
 * A store that refuses a file is a 409. Every inline file is written again even when its object
 * exists, which renews the object's last-modified time: the orphaned-upload sweep only deletes
 * unreferenced objects older than its grace period, so it leaves alone an object this turn is
 * about to reference (but for the race in docs/decisions/orphaned-upload-sweep.md); an upload's row is a
 * reference of its own. Bytes never touch the database. Call it outside any transaction (no row
 * is locked while the bytes travel); if the rows are never committed, the objects stay
 * unreferenced until the sweep (`processes/sweep-orphaned-uploads.ts`) removes them.
 */
export async function uploadAttachments(
  ctx: ServiceContext,
  input: {
    files: readonly TurnFileInput[];
    organizationId: string;
    projectId: string;
    agentVersionId: string;
    keyring: CredentialKeyring;
    storagePolicy: StorageEndpointPolicy;
  },
): Promise<UploadedAttachments> {
  const referenced = await findTurnUploads(ctx, { projectId: input.projectId, files: input.files });
  const described = input.files.map((file) =>
    isUploadRef(file)
      ? {
          name: referenced.get(file.uploadId)!.filename,
          fileClass: referenced.get(file.uploadId)!.fileClass,
          sizeBytes: referenced.get(file.uploadId)!.sizeBytes,
        }
      : { name: file.name, fileClass: file.fileClass, sizeBytes: file.sizeBytes },
  );
  const setProblem = turnFileSetProblem(described, (index) => `files.${index}`);
  if (setProblem) throw new ValidationError(`Invalid body: ${setProblem.path}: ${setProblem.message}`, { path: `body.${setProblem.path}` });
  const problem = await versionSandboxProblem(ctx, input.agentVersionId, described);
  if (problem) throw new ValidationError(problem, { path: 'body.files' });
  const provider = await findDefaultStorageProvider(ctx, input.organizationId);
  if (!provider) throw new ValidationError('Files need a default storage provider in this organization; connect one first', { path: 'body.files' });
  if (!input.keyring.configured)
    throw new ValidationError('Files need platform credential encryption, which this server has not configured', { path: 'body.files' });
  for (const upload of referenced.values()) {
    if (upload.storageProviderId !== provider.id)
      throw new ConflictError(`Upload ${upload.id} is stored on a storage provider that is no longer the organization's default; upload it again`, {
        uploadId: upload.id,
      });
  }

  const root = tenantRoot({ providerPrefix: provider.prefix, organizationId: input.organizationId, projectId: input.projectId });
  const client = s3ClientFor(provider, input.keyring, input.storagePolicy);
  try {
    const written = new Set<string>();
    const files: UploadedFile[] = [];
    for (const file of input.files) {
      if (isUploadRef(file)) {
        const upload = referenced.get(file.uploadId)!;
        files.push({
          filename: upload.filename,
          contentType: upload.contentType,
          fileClass: upload.fileClass,
          sizeBytes: upload.sizeBytes,
          sha256: upload.sha256,
          objectKey: upload.objectKey,
        });
        continue;
      }
      const stored = await putFileBytes(ctx, { client, provider, root, dataBase64: file.dataBase64, written });
      files.push({ filename: file.name, contentType: file.contentType, fileClass: file.fileClass, ...stored });
    }
    return { organizationId: input.organizationId, projectId: input.projectId, agentVersionId: input.agentVersionId, storageProviderId: provider.id, files };
  } finally {
    client.destroy();
  }
}

/**
 * Writes one file's bytes to `run-files/<sha256>` under `root` (once per key in `written`) and
 * answers what its row records; a store that refuses it is a 409. Shared by turns and uploads.
 */
export async function putFileBytes(
  ctx: ServiceContext,
  input: { client: S3Client; provider: StorageProviderRow; root: string; dataBase64: string; written?: Set<string> },
): Promise<{ sizeBytes: number; sha256: string; objectKey: string }> {
  const bytes = Buffer.from(input.dataBase64, 'base64');
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const objectKey = runFileObjectKey(input.root, sha256);
  if (!input.written?.has(objectKey)) {
    try {
      // The object may be shared by files of other names and types: its type is the row's business.
      await putObjectBytes(input.client, { bucket: input.provider.bucket, key: objectKey, bytes, contentType: 'application/octet-stream' });
    } catch (error) {
      throw storageFailure(ctx, { what: 'storeFiles', providerId: input.provider.id, error });
    }
    input.written?.add(objectKey);
  }
  return { sizeBytes: bytes.length, sha256, objectKey };
}

/**
 * Inside the transaction that queues the run, before any row names the uploaded objects: the
 * session must be the one the files were checked for, and the organization's default storage
 * connection must still be the one they went to (409 otherwise, nothing recorded; the objects
 * are left to the sweep). A session created while a newer agent version was published pins that
 * version, so its sandbox is checked again (no I/O besides the read). Returns the rows to record,
 * each with a new id and the run's time.
 */
export async function confirmUploadedAttachments(
  tx: ServiceContext,
  input: { session: TurnSession; uploaded: UploadedAttachments | null; now: Date },
): Promise<StoredAttachment[]> {
  const { session, uploaded } = input;
  if (!uploaded || uploaded.files.length === 0) return [];
  if (uploaded.organizationId !== session.organizationId || uploaded.projectId !== session.projectId) {
    throw new Error('uploaded attachments belong to another project than the session');
  }
  if (uploaded.agentVersionId !== session.agentVersionId) {
    const files = uploaded.files.map((file) => ({ name: file.filename, fileClass: file.fileClass }));
    const problem = await versionSandboxProblem(tx, session.agentVersionId, files);
    if (problem) throw new ValidationError(problem, { path: 'body.files' });
  }
  const provider = await findDefaultStorageProvider(tx, session.organizationId);
  if (provider?.id !== uploaded.storageProviderId) {
    throw new ConflictError("The organization's default storage provider changed while the files were uploading; nothing was queued, send the request again");
  }
  const createdAt = input.now.toISOString();
  return uploaded.files.map((file) => ({ id: randomUUID(), createdAt, storageProviderId: uploaded.storageProviderId, ...file }));
}

/** The attachment rows of a queued run, in the caller's transaction. */
export async function recordAttachments(
  tx: ServiceContext,
  input: { organizationId: string; projectId: string; sessionId: string; runId: string; stored: readonly StoredAttachment[] },
): Promise<void> {
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

/** Why the version's sandbox cannot open these files, or null (spec 2 rule 3). */
async function versionSandboxProblem(
  ctx: ServiceContext,
  agentVersionId: string,
  files: ReadonlyArray<Pick<AcceptedFile, 'name' | 'fileClass'>>,
): Promise<string | null> {
  const [version] = await ctx.db.select({ config: agentVersions.config }).from(agentVersions).where(eq(agentVersions.id, agentVersionId));
  if (!version) throw new Error(`agent version ${agentVersionId} does not exist`);
  return sandboxCapabilityProblem(files, (version.config as unknown as AgentConfig).sandbox);
}
