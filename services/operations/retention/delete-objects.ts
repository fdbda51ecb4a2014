import { and, asc, eq, inArray, notInArray } from 'drizzle-orm';
import { deleteObject, listObjectPage } from '../../../adapters/storage/objects.ts';
import type { S3Client } from '../../../adapters/storage/s3-client.ts';
import { attachments, projects, retentionObjectDeletions, storageProviders, uploads } from '../../../db/schema/index.ts';
import { projectsRoot } from '../../../domain/storage/paths.ts';
import { uploadIsLive } from '../../runtime/attachments/index.ts';
import type { CredentialKeyring } from '../../kernel/credentials/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import type { StorageProviderRow } from '../../configuration/storage-providers/index.ts';
import { s3ClientFor, type StorageEndpointPolicy } from '../../configuration/storage-providers/index.ts';
import { isLowercaseUuid } from '../../../domain/uuid.ts';

export type ObjectStoreDeps = { keyring: CredentialKeyring; storagePolicy: StorageEndpointPolicy };

export type ObjectDeletionResult = {
  /** Objects deleted from storage. */
  deleted: number;
  /** Queue entries finished (and removed). */
  finished: number;
  /** True when the budget ran out with work left: call again. */
  more: boolean;
  /** Connections that could not be opened, listed or written this call (skipped until the caller retries them). */
  failedProviders: string[];
};

const LIST_PAGE = 1_000;

/**
 * Removes from storage the objects of the sessions retention deleted (the queue
 * `retention_object_deletions`, written by `purgeExpiredSessions` in the transaction that deleted
 * their rows), oldest first, at most `maxDeletes` objects per call, outside any transaction. A
 * workspace's backup folder goes whole; a content-addressed run file only when no remaining
 * attachment, nor standalone upload that has not expired, of the project names it (equal files of
 * other sessions share the object). An entry is removed once its objects are gone; a process that
 * dies in between leaves it for the next call, and a second deletion of a gone object is a no-op,
 * so several workers may drain at once. A connection that fails is logged by id and error name,
 * and skipped (`skipProviders`) until the caller retries it.
 */
export async function deleteRetainedObjects(
  ctx: ServiceContext,
  deps: ObjectStoreDeps,
  options: { maxDeletes: number; skipProviders?: ReadonlySet<string> },
): Promise<ObjectDeletionResult> {
  const result: ObjectDeletionResult = { deleted: 0, finished: 0, more: false, failedProviders: [] };
  if (!deps.keyring.configured) return result;
  let budget = options.maxDeletes;
  const skip = [...(options.skipProviders ?? [])];
  const entries = await ctx.db
    .select()
    .from(retentionObjectDeletions)
    .where(skip.length > 0 ? notInArray(retentionObjectDeletions.storageProviderId, skip) : undefined)
    .orderBy(asc(retentionObjectDeletions.createdAt))
    .limit(options.maxDeletes + 1);
  if (entries.length > options.maxDeletes) result.more = true;
  const clients = new Map<string, { client: S3Client; provider: StorageProviderRow } | null>();
  try {
    for (const entry of entries.slice(0, options.maxDeletes)) {
      if (budget <= 0) {
        result.more = true;
        break;
      }
      const store = await openStore(ctx, deps, clients, entry.storageProviderId);
      if (!store) continue;
      try {
        if (entry.kind === 'prefix') {
          const { deleted, done } = await deleteUnder(store, entry.objectKey, budget);
          result.deleted += deleted;
          budget -= deleted;
          if (!done) {
            result.more = true;
            break;
          }
        } else if (!(await stillReferenced(ctx, entry.projectId, entry.objectKey))) {
          await deleteObject(store.client, { bucket: store.provider.bucket, key: entry.objectKey });
          result.deleted += 1;
          budget -= 1;
        }
        await ctx.db.delete(retentionObjectDeletions).where(eq(retentionObjectDeletions.id, entry.id));
        result.finished += 1;
      } catch (error) {
        ctx.logger.warn('retention: a storage connection failed; its objects wait for a later sweep', {
          providerId: entry.storageProviderId,
          errorName: (error as Error).name,
        });
        clients.get(entry.storageProviderId)?.client.destroy();
        clients.set(entry.storageProviderId, null);
        result.failedProviders.push(entry.storageProviderId);
      }
    }
  } finally {
    for (const store of clients.values()) store?.client.destroy();
  }
  if (result.deleted > 0)
    ctx.logger.info('retention: objects of expired sessions deleted', { deleted: result.deleted, finished: result.finished, more: result.more });
  return result;
}

/** Where a deleted project's objects sweep stopped: the connection to continue with. */
export type ProjectSweepPosition = { providerId: string };

export type ProjectSweepResult = { deleted: number; projects: number; next: ProjectSweepPosition | null; failedProviders: string[] };

/**
 * Removes the objects of deleted projects (docs/decisions/retention-objects.md): deleting a project
 * removes its rows at once and leaves its objects; here, per storage connection, the project
 * folders of the connection's organization (`<prefix>/orgs/<org>/projects/<projectId>/`) whose
 * project no longer exists are emptied, at most `maxDeletes` objects per call (`next` says where
 * to continue). A project id is never reused and a project's row exists before any of its
 * objects, so a folder without a project row is garbage. This also cleans up after projects
 * deleted before this sweep existed.
 */
export async function sweepDeletedProjectObjects(
  ctx: ServiceContext,
  deps: ObjectStoreDeps,
  options: { maxDeletes: number; from?: ProjectSweepPosition | null; skipProviders?: ReadonlySet<string> },
): Promise<ProjectSweepResult> {
  const result: ProjectSweepResult = { deleted: 0, projects: 0, next: null, failedProviders: [] };
  if (!deps.keyring.configured) return result;
  let budget = options.maxDeletes;
  const providers = await ctx.db.select().from(storageProviders).orderBy(asc(storageProviders.id));
  const start = options.from ? providers.findIndex((provider) => provider.id >= options.from!.providerId) : 0;
  for (const provider of start === -1 ? [] : providers.slice(start)) {
    if (options.skipProviders?.has(provider.id)) continue;
    let client: S3Client | null = null;
    try {
      client = s3ClientFor(provider, deps.keyring, deps.storagePolicy);
      const store = { client, provider };
      const projectsFolder = projectsRoot({ providerPrefix: provider.prefix, organizationId: provider.organizationId });
      const folders: string[] = [];
      let token: string | null = null;
      do {
        const page = await listObjectPage(client, {
          bucket: provider.bucket,
          prefix: projectsFolder,
          delimiter: '/',
          maxKeys: LIST_PAGE,
          continuationToken: token,
        });
        folders.push(...page.folders);
        token = page.truncated ? page.continuationToken : null;
      } while (token);
      const ids = folders.map((folder) => folder.slice(projectsFolder.length, -1)).filter((id) => isLowercaseUuid(id));
      if (ids.length === 0) continue;
      const existing = new Set(
        (
          await ctx.db
            .select({ id: projects.id })
            .from(projects)
            .where(and(eq(projects.organizationId, provider.organizationId), inArray(projects.id, ids)))
        ).map((row) => row.id),
      );
      for (const id of ids.filter((id) => !existing.has(id))) {
        const { deleted, done } = await deleteUnder(store, `${projectsFolder}${id}/`, budget);
        result.deleted += deleted;
        budget -= deleted;
        if (!done) {
          result.next = { providerId: provider.id };
          break;
        }
        result.projects += 1;
        ctx.logger.info('retention: objects of a deleted project removed', { providerId: provider.id, projectId: id });
      }
    } catch (error) {
      ctx.logger.warn('retention: a storage connection failed; deleted projects there wait for a later sweep', {
        providerId: provider.id,
        errorName: (error as Error).name,
      });
      result.failedProviders.push(provider.id);
    } finally {
      client?.destroy();
    }
    if (result.next) break;
  }
  return result;
}

async function openStore(
  ctx: ServiceContext,
  deps: ObjectStoreDeps,
  clients: Map<string, { client: S3Client; provider: StorageProviderRow } | null>,
  providerId: string,
): Promise<{ client: S3Client; provider: StorageProviderRow } | null> {
  if (clients.has(providerId)) return clients.get(providerId)!;
  const [provider] = await ctx.db.select().from(storageProviders).where(eq(storageProviders.id, providerId));
  let store: { client: S3Client; provider: StorageProviderRow } | null = null;
  try {
    if (provider) store = { client: s3ClientFor(provider, deps.keyring, deps.storagePolicy), provider };
  } catch (error) {
    ctx.logger.warn('retention: a storage connection cannot be opened; its objects wait for a later sweep', { providerId, errorName: (error as Error).name });
  }
  clients.set(providerId, store);
  return store;
}

/** Deletes up to `budget` objects under `prefix`; `done` when none is left. */
async function deleteUnder(
  store: { client: S3Client; provider: StorageProviderRow },
  prefix: string,
  budget: number,
): Promise<{ deleted: number; done: boolean }> {
  let deleted = 0;
  for (;;) {
    if (deleted >= budget) return { deleted, done: false };
    const page = await listObjectPage(store.client, { bucket: store.provider.bucket, prefix, maxKeys: Math.min(LIST_PAGE, budget - deleted) });
    const keys = page.objects.map((object) => object.key).filter((key) => key.startsWith(prefix));
    for (const key of keys) {
      await deleteObject(store.client, { bucket: store.provider.bucket, key });
      deleted += 1;
    }
    if (!page.truncated || keys.length === 0) return { deleted, done: !page.truncated };
  }
}

/** Whether an attachment or a live upload of the project still names a content-addressed object. */
async function stillReferenced(ctx: ServiceContext, projectId: string, objectKey: string): Promise<boolean> {
  const [attachment] = await ctx.db
    .select({ id: attachments.id })
    .from(attachments)
    .where(and(eq(attachments.projectId, projectId), eq(attachments.objectKey, objectKey)))
    .limit(1);
  if (attachment) return true;
  const [upload] = await ctx.db
    .select({ id: uploads.id })
    .from(uploads)
    .where(and(eq(uploads.projectId, projectId), eq(uploads.objectKey, objectKey), uploadIsLive(ctx.clock.now())))
    .limit(1);
  return upload !== undefined;
}
