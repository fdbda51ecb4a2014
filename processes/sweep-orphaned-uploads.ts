import { and, asc, eq, gte, inArray } from 'drizzle-orm';
import { deleteObject, listObjectPage } from '../adapters/storage/objects.ts';
import type { S3Client } from '../adapters/storage/s3-client.ts';
import { attachments, projects, storageProviders, uploads } from '../db/schema/index.ts';
import { uploadIsLive } from '../services/runtime/attachments/index.ts';
import { tenantRoot } from '../domain/storage/paths.ts';
import { RUN_FILES_FOLDER } from '../services/runtime/attachments/index.ts';
import type { CredentialKeyring } from '../services/kernel/credentials/index.ts';
import type { ServiceContext } from '../services/kernel/service-context.ts';
import { repeatTicks } from './repeat-ticks.ts';
import type { StorageProviderRow } from '../services/configuration/storage-providers/index.ts';
import { s3ClientFor, type StorageEndpointPolicy } from '../services/configuration/storage-providers/index.ts';
import { isLowercaseUuid } from '../domain/uuid.ts';

/** An unreferenced upload younger than this is left alone: its turn may still be committing. */
export const ORPHANED_UPLOAD_GRACE_MS = 24 * 60 * 60 * 1000;
/** How often the worker sweeps. */
export const ORPHANED_UPLOAD_SWEEP_INTERVAL_MS = 60 * 60 * 1000;
/** The first sweep after a start comes sooner, so workers restarted more often than hourly still sweep. */
const FIRST_SWEEP_DELAY_MS = 60_000;

/**
 * The object names the service writes under `run-files/`: a SHA-256 (content-addressed uploads)
 * or a UUID (legacy keys, the attachment id). Anything else there is not ours and is left alone.
 */
const isUploadName = (name: string) => /^[0-9a-f]{64}$/.test(name) || isLowercaseUuid(name);

/** Where a bounded sweep stopped: the (connection, project) to continue with and the last key handled there. */
export type SweepPosition = { providerId: string; projectId: string; afterKey: string | null };

export type SweepOptions = {
  /** Minimum age (by the object's LastModified) of an unreferenced object before it is deleted. */
  graceMs?: number;
  /** LIST requests in one call; each returns up to `pageSize` keys. Bounds the work of a tick. */
  maxPages?: number;
  pageSize?: number;
  /** DELETE requests in one call. */
  maxDeletes?: number;
  /** Continue where an earlier call stopped (its `next`); from the beginning when null. */
  from?: SweepPosition | null;
  /** Asked between requests: true ends the call early (a stopping process). */
  shouldStop?: () => boolean;
};

export type SweepResult = {
  /** Objects listed under `run-files/` folders. */
  listed: number;
  deleted: number;
  /** Where to continue when the budget ran out or the sweep was stopped; null after a full pass. */
  next: SweepPosition | null;
};

type Budget = { pages: number; deletes: number; shouldStop: () => boolean };

/**
 * Deletes uploads no attachment row (nor standalone upload that has not expired) references (docs/decisions/orphaned-upload-sweep.md). Files are
 * uploaded before the transaction that records them, so a transaction that rolls back (a 409, a
 * crash, a lost race) leaves its objects behind. Per storage connection (all organizations) and
 * per project of its organization, the objects under the project's `run-files/` are listed in key
 * order; one whose key no attachment row of that project references and whose LastModified is
 * older than the grace period is deleted. Every upload writes its object again, renewing
 * LastModified, so an object a request is about to reference is younger than the grace period.
 * The work of one call is bounded (`maxPages`, `maxDeletes`); `next` says where to continue. A
 * connection that cannot be opened, listed or written is logged (by id and error name) and
 * skipped. Reads and deletes are idempotent: several workers may sweep at once.
 */
export async function sweepOrphanedUploads(
  ctx: ServiceContext,
  deps: { keyring: CredentialKeyring; storagePolicy: StorageEndpointPolicy },
  options: SweepOptions = {},
): Promise<SweepResult> {
  const result: SweepResult = { listed: 0, deleted: 0, next: null };
  // Without the key no connection's credential opens (and none can have been created).
  if (!deps.keyring.configured) return result;
  const graceMs = options.graceMs ?? ORPHANED_UPLOAD_GRACE_MS;
  const cutoff = ctx.clock.now().getTime() - graceMs;
  const budget: Budget = { pages: options.maxPages ?? 20, deletes: options.maxDeletes ?? 1_000, shouldStop: options.shouldStop ?? (() => false) };
  const pageSize = options.pageSize ?? 1_000;
  const from = options.from ?? null;

  const providers = await ctx.db
    .select()
    .from(storageProviders)
    .where(from ? gte(storageProviders.id, from.providerId) : undefined)
    .orderBy(asc(storageProviders.id));
  for (const provider of providers) {
    const resume = from && from.providerId === provider.id ? from : null;
    const projectIds = await ctx.db
      .select({ id: projects.id })
      .from(projects)
      .where(and(eq(projects.organizationId, provider.organizationId), resume ? gte(projects.id, resume.projectId) : undefined))
      .orderBy(asc(projects.id));
    let client: S3Client | null = null;
    try {
      client = s3ClientFor(provider, deps.keyring, deps.storagePolicy);
      for (const { id: projectId } of projectIds) {
        const afterKey = resume && resume.projectId === projectId ? resume.afterKey : null;
        const stoppedAt = await sweepProject(ctx, { client, provider, projectId, afterKey, cutoff, pageSize, budget, result });
        if (stoppedAt) {
          result.next = stoppedAt;
          break;
        }
      }
    } catch (error) {
      ctx.logger.warn('orphaned-upload sweep skipped a storage provider', { providerId: provider.id, errorName: (error as Error).name });
    } finally {
      client?.destroy();
    }
    if (result.next) break;
  }
  if (result.deleted > 0) ctx.logger.info('orphaned uploads deleted', { listed: result.listed, deleted: result.deleted, finished: result.next === null });
  return result;
}

/** One project's `run-files/` on one connection, in key order; the position to resume at when the budget runs out. */
async function sweepProject(
  ctx: ServiceContext,
  input: {
    client: S3Client;
    provider: StorageProviderRow;
    projectId: string;
    afterKey: string | null;
    cutoff: number;
    pageSize: number;
    budget: Budget;
    result: SweepResult;
  },
): Promise<SweepPosition | null> {
  const { client, provider, projectId, budget, result } = input;
  const folder = tenantRoot({ providerPrefix: provider.prefix, organizationId: provider.organizationId, projectId }) + RUN_FILES_FOLDER;
  let handled = input.afterKey;
  const stopHere = () => ({ providerId: provider.id, projectId, afterKey: handled });
  for (;;) {
    if (budget.pages <= 0 || budget.shouldStop()) return stopHere();
    budget.pages -= 1;
    const page = await listObjectPage(client, { bucket: provider.bucket, prefix: folder, maxKeys: input.pageSize, startAfter: handled });
    const entries = page.objects.filter((entry) => entry.key.startsWith(folder));
    result.listed += entries.length;
    const candidates = entries
      .filter((entry) => isUploadName(entry.key.slice(folder.length)) && entry.lastModified !== null && entry.lastModified.getTime() <= input.cutoff)
      .map((entry) => entry.key);
    const referenced = new Set(
      candidates.length === 0
        ? []
        : [
            ...(await ctx.db
              .select({ objectKey: attachments.objectKey })
              .from(attachments)
              .where(
                and(eq(attachments.organizationId, provider.organizationId), eq(attachments.projectId, projectId), inArray(attachments.objectKey, candidates)),
              )),
            // A standalone upload that has not expired holds its object too.
            ...(await ctx.db
              .select({ objectKey: uploads.objectKey })
              .from(uploads)
              .where(and(eq(uploads.projectId, projectId), inArray(uploads.objectKey, candidates), uploadIsLive(ctx.clock.now())))),
          ].map((row) => row.objectKey),
    );
    const orphaned = new Set(candidates.filter((key) => !referenced.has(key)));
    for (const { key } of entries) {
      if (orphaned.has(key)) {
        if (budget.deletes <= 0 || budget.shouldStop()) return stopHere();
        budget.deletes -= 1;
        await deleteObject(client, { bucket: provider.bucket, key });
        result.deleted += 1;
        ctx.logger.debug('orphaned upload deleted', { providerId: provider.id, projectId, key: key.slice(folder.length) });
      }
      handled = key;
    }
    if (!page.truncated || entries.length === 0) return null;
  }
}

/**
 * Runs `sweepOrphanedUploads` every `intervalMs` (hourly by default) until stopped, in the worker
 * process; each tick continues where the previous one's budget ran out. A tick never throws: a
 * failure is logged and the next tick starts over. `stop()` resolves once a running tick ends.
 */
export function startOrphanedUploadSweeper(
  ctx: ServiceContext,
  deps: { keyring: CredentialKeyring; storagePolicy: StorageEndpointPolicy },
  options: { intervalMs?: number; graceMs?: number } = {},
): { stop(): Promise<void> } {
  const intervalMs = options.intervalMs ?? ORPHANED_UPLOAD_SWEEP_INTERVAL_MS;
  let position: SweepPosition | null = null;
  return repeatTicks(Math.min(intervalMs, FIRST_SWEEP_DELAY_MS), async (stopping) => {
    try {
      const result = await sweepOrphanedUploads(ctx, deps, {
        ...(options.graceMs !== undefined ? { graceMs: options.graceMs } : {}),
        from: position,
        shouldStop: stopping,
      });
      position = result.next;
    } catch (error) {
      position = null;
      ctx.logger.error('orphaned-upload sweep failed', { err: error });
    }
    return intervalMs;
  });
}
