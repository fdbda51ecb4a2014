import * as v from 'valibot';
import { uploads } from '../../../db/schema/index.ts';
import { checkFileInputs, isUploadRef } from '../../../domain/attachments/file-input.ts';
import { ValidationError } from '../../../domain/errors.ts';
import { CreateUploadInput } from '../../../domain/public-shapes/uploads.ts';
import { tenantRoot } from '../../../domain/storage/paths.ts';
import { PUBLIC_STORAGE_ONLY, putFileBytes } from '../attachments/index.ts';
import { recordAudit } from '../../kernel/audit/index.ts';
import type { CredentialKeyring } from '../../kernel/credentials/index.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { findDefaultStorageProvider } from '../../configuration/storage-providers/index.ts';
import { s3ClientFor, type StorageEndpointPolicy } from '../../configuration/storage-providers/index.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { toUploadResponse, type PublicUpload } from './public.ts';

export type UploadDeps = { keyring: CredentialKeyring; storagePolicy?: StorageEndpointPolicy };

/**
 * A standalone upload (`POST /uploads`): one file under the turn file rules (name, kind, 10 MiB),
 * its bytes written to the organization's default storage like a turn's attachment (before the
 * transaction, which then records the row), referenced later by id in a turn's `files`. The
 * sandbox rule is checked when a turn names it (it depends on that session's agent version).
 */
export async function createUpload({ ctx, deps, input }: { ctx: ServiceContext; deps: UploadDeps; input: CreateUploadInput }): Promise<PublicUpload> {
  const actor = requireActor(ctx);
  const body = v.parse(CreateUploadInput, input);
  const check = checkFileInputs([{ name: body.name, contentType: body.contentType, dataBase64: body.dataBase64 }], { pathPrefix: 'files' });
  if (!check.ok) {
    const field = check.violation.path.replace(/^files\.0\.?/, '') || 'body';
    throw new ValidationError(`Invalid body: ${field}: ${check.violation.message}`, { path: `body.${field}` });
  }
  const file = check.files[0]!;
  if (isUploadRef(file)) throw new ValidationError('Invalid body: an upload holds bytes, not a reference', { path: 'body' });
  const provider = await findDefaultStorageProvider(ctx, actor.organizationId);
  if (!provider) throw new ValidationError('Uploads need a default storage provider in this organization; connect one first', { path: 'body' });
  if (!deps.keyring.configured)
    throw new ValidationError('Uploads need platform credential encryption, which this server has not configured', { path: 'body' });
  const root = tenantRoot({ providerPrefix: provider.prefix, organizationId: actor.organizationId, projectId: actor.projectId });
  const client = s3ClientFor(provider, deps.keyring, deps.storagePolicy ?? PUBLIC_STORAGE_ONLY);
  let stored: Awaited<ReturnType<typeof putFileBytes>>;
  try {
    stored = await putFileBytes(ctx, { client, provider, root, dataBase64: file.dataBase64 });
  } finally {
    client.destroy();
  }
  return withTransaction(ctx, async (tx) => {
    const now = tx.clock.now();
    const [row] = await tx.db
      .insert(uploads)
      .values({
        organizationId: actor.organizationId,
        projectId: actor.projectId,
        filename: file.name,
        contentType: file.contentType,
        fileClass: file.fileClass,
        storageProviderId: provider.id,
        createdByPrincipalId: actor.principalId,
        createdAt: now,
        expiresAt: body.expiresInSeconds === undefined ? null : new Date(now.getTime() + body.expiresInSeconds * 1000),
        ...stored,
      })
      .returning();
    await recordAudit(tx, {
      action: 'upload.created',
      targetType: 'upload',
      targetId: row!.id,
      details: { sizeBytes: row!.sizeBytes, contentType: row!.contentType },
    });
    return toUploadResponse(row!);
  });
}
