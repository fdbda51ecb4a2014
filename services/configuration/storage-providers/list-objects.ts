import type * as v from 'valibot';
import { listObjectPage } from '../../../adapters/storage/objects.ts';
import type { StoredObjectListingShape } from '../../../domain/public-shapes/connections.ts';
import { ConflictError, ValidationError } from '../../../domain/errors.ts';
import { tenantRoot } from '../../../domain/storage/paths.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import type { CredentialKeyring } from '../../kernel/credentials/index.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { loadStorageProvider } from './load.ts';
import { blockedEndpointReason, s3ClientFor, type StorageEndpointPolicy } from './s3-client.ts';

export type StoredObjectListing = v.InferOutput<typeof StoredObjectListingShape>;

/**
 * One folder level of the project's objects on a connection (spec 1 "Stored object listing").
 * Keys are logical: relative to the connection's prefix and the tenant path, so neither the
 * bucket, the prefix nor another tenant's objects can be named or seen. The cursor wraps S3's
 * continuation token with the prefix it belongs to. A store that cannot be reached is a 409 with
 * a safe message; the provider's own error text is logged, never returned. An endpoint the
 * address policy refuses is a 409 saying so, before any byte is sent to it.
 */
export async function listStoredObjects({
  ctx,
  keyring,
  policy,
  input,
}: {
  ctx: ServiceContext;
  keyring: CredentialKeyring;
  policy: StorageEndpointPolicy;
  input: { providerId: string; prefix: string; cursor?: string | undefined; limit: number };
}): Promise<StoredObjectListing> {
  const actor = requireActor(ctx);
  const provider = await loadStorageProvider(ctx, { organizationId: actor.organizationId, providerId: input.providerId });
  const prefix = input.prefix === '' || input.prefix.endsWith('/') ? input.prefix : `${input.prefix}/`;
  const token = input.cursor === undefined ? undefined : decodeListingCursor(input.cursor, prefix);
  const root = tenantRoot({ providerPrefix: provider.prefix, organizationId: actor.organizationId, projectId: actor.projectId });
  const client = s3ClientFor(provider, keyring, policy);
  try {
    const page = await listObjectPage(client, {
      bucket: provider.bucket,
      prefix: root + prefix,
      delimiter: '/',
      maxKeys: input.limit,
      continuationToken: token ?? null,
    });
    const logical = (key: string) => key.slice(root.length);
    const listing: StoredObjectListing = {
      prefix,
      folders: page.folders.flatMap((folder) => (folder.startsWith(root) ? [logical(folder)] : [])),
      objects: page.objects.flatMap((entry) =>
        entry.key.startsWith(root)
          ? [{ key: logical(entry.key), sizeBytes: entry.sizeBytes, ...(entry.lastModified ? { lastModifiedAt: entry.lastModified.toISOString() } : {}) }]
          : [],
      ),
      truncated: page.truncated,
    };
    if (listing.truncated && page.continuationToken) listing.cursor = encodeListingCursor(prefix, page.continuationToken);
    return listing;
  } catch (error) {
    ctx.logger.warn('storage listing failed', { providerId: provider.id, errorName: (error as Error).name, requestId: ctx.requestId });
    const blocked = blockedEndpointReason(error);
    if (blocked) throw new ConflictError(`Storage provider "${provider.key}" cannot be used: ${blocked}`);
    throw new ConflictError(`Storage provider "${provider.key}" cannot list objects right now (check its bucket, endpoint and credentials)`);
  } finally {
    client.destroy();
  }
}

function encodeListingCursor(prefix: string, token: string): string {
  return Buffer.from(JSON.stringify({ v: 1, p: prefix, t: token }), 'utf8').toString('base64url');
}

function decodeListingCursor(cursor: string, prefix: string): string {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { v?: unknown; p?: unknown; t?: unknown };
    if (value.v === 1 && value.p === prefix && typeof value.t === 'string') return value.t;
  } catch {
    // fall through
  }
  throw new ValidationError('cursor is not a listing cursor for this prefix', { path: 'query.cursor' });
}
