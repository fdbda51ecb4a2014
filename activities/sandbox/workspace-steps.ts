import { createHash } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { asc, eq, max } from 'drizzle-orm';
import { attachments, runs, sandboxes, storageProviders, workspaceBackups } from '../../db/schema/index.ts';
import { storedTypeProblem } from '../../domain/attachments/file-input.ts';
import { attachmentWorkspacePath } from '../../domain/attachments/metadata.ts';
import type { Snapshot } from '../../domain/sandbox/snapshot-registry.ts';
import { tenantRoot } from '../../domain/storage/paths.ts';
import type { ServiceContext } from '../../services/service-context.ts';
import type { CredentialKeyring } from '../../services/credentials/keyring.ts';
import { backupKeys, latestWorkspaceBackup } from '../../services/sandboxes/backups.ts';
import { ensureRunSandbox, workspaceOwnerOf, type RunSandbox } from '../../services/sandboxes/ensure.ts';
import { findDefaultStorageProvider } from '../../services/storage-providers/load.ts';
import { getObjectBytes, putObjectBytes } from '../../services/storage-providers/objects.ts';
import { s3ClientFor } from '../../services/storage-providers/s3-client.ts';
import { verifyArchiveBytes } from '../../services/workspace-files/archive-reader.ts';
import { MANIFEST_FORMAT_VERSION, serializeManifest, type WorkspaceManifest } from '../../domain/workspace-files/manifest.ts';
import { createWorkspaceArchive } from './backup/archive-writer.ts';
import type { LocalSandboxDriver } from './local/driver.ts';
import { execInTarget } from './run-target.ts';

const COPY_TIMEOUT_MS = 60_000;

export type PrepareWorkspaceResult = { ok: true } | { ok: false; errorCode: string; errorExplanation: string };
export type BackupWorkspaceResult = { generation: number } | { skipped: 'no_sandbox' | 'no_storage' | 'too_large' | 'already_done' };

/**
 * The workspace steps around a run: before its first model turn the session's sandbox exists
 * (restored from the latest backup when this worker has no copy) and the run's attachments are
 * in `.svc/attachments/<runId>/`, each verified on the way (type against the file rules, size and
 * SHA-256 against what was recorded at upload);
 * after the run settles, the workspace is archived with a manifest into the thread's storage
 * connection as the next generation. Both are idempotent (keyed by run).
 */
export function createWorkspaceSteps(deps: { system: () => ServiceContext; driver: LocalSandboxDriver; snapshots: ReadonlyMap<string, Snapshot>; keyring: CredentialKeyring }) {
  const { driver, keyring } = deps;

  const exec = (target: RunSandbox, argv: string[], stdin?: Uint8Array) => execInTarget(deps, target, argv, { timeoutMs: COPY_TIMEOUT_MS, ...(stdin ? { stdin } : {}) });

  /** Unpacks the latest backup into an empty workspace (a new worker, or a wiped data disk). */
  const restoreIfEmpty = async (ctx: ServiceContext, target: RunSandbox) => {
    const workspace = await driver.ensureWorkspace(target.sandbox.id);
    if ((await readdir(workspace)).length > 0) return;
    const backup = await latestWorkspaceBackup(ctx, { projectId: target.sandbox.projectId, workspaceSessionId: target.sandbox.workspaceSessionId });
    if (!backup) return;
    const [provider] = await ctx.db.select().from(storageProviders).where(eq(storageProviders.id, backup.storageProviderId));
    if (!provider) return;
    const client = s3ClientFor(provider, keyring);
    try {
      const archive = await getObjectBytes(client, { bucket: provider.bucket, key: backup.archiveKey });
      if (verifyArchiveBytes(archive, { sizeBytes: backup.archiveSizeBytes, sha256: backup.archiveSha256 }) !== null) {
        ctx.logger.warn('workspace backup failed verification; starting with an empty workspace', { sandboxId: target.sandbox.id, generation: backup.generation });
        return;
      }
      // tar runs inside the sandbox, so a hostile archive can only write where the sandbox can.
      const result = await exec(target, ['tar', '-x', '--no-same-owner', '--no-same-permissions', '-f', '-'], archive);
      if (result.exitCode !== 0) ctx.logger.warn('workspace restore failed', { sandboxId: target.sandbox.id, stderr: result.stderr.slice(0, 300) });
    } finally {
      client.destroy();
    }
  };

  return {
    async prepareRunWorkspace({ runId }: { runId: string }): Promise<PrepareWorkspaceResult> {
      const ctx = deps.system();
      const target = await ensureRunSandbox(ctx, { runId });
      if (!target) return { ok: true };
      await restoreIfEmpty(ctx, target);
      const files = await ctx.db.select().from(attachments).where(eq(attachments.runId, runId)).orderBy(asc(attachments.position));
      for (const file of files) {
        const typeProblem = storedTypeProblem(file);
        if (typeProblem) return { ok: false, errorCode: 'attachment_integrity_failed', errorExplanation: `${typeProblem}.` };
        const [provider] = await ctx.db.select().from(storageProviders).where(eq(storageProviders.id, file.storageProviderId));
        if (!provider) return { ok: false, errorCode: 'attachment_unavailable', errorExplanation: `The storage connection holding "${file.filename}" no longer exists.` };
        const client = s3ClientFor(provider, keyring);
        let bytes: Buffer;
        try {
          bytes = await getObjectBytes(client, { bucket: provider.bucket, key: file.objectKey });
        } catch {
          return { ok: false, errorCode: 'attachment_unavailable', errorExplanation: `"${file.filename}" could not be read from storage.` };
        } finally {
          client.destroy();
        }
        const sha256 = createHash('sha256').update(bytes).digest('hex');
        if (bytes.length !== file.sizeBytes || sha256 !== file.sha256) {
          return { ok: false, errorCode: 'attachment_integrity_failed', errorExplanation: `"${file.filename}" in storage does not match the size and SHA-256 recorded when it was attached.` };
        }
        const destination = attachmentWorkspacePath(runId, file.filename);
        const written = await exec(target, ['bash', '-c', 'mkdir -p -- "$(dirname -- "$1")" && cat > "$1"', 'copy', destination], bytes);
        if (written.exitCode !== 0) throw new Error(`copying an attachment into the workspace failed: ${written.stderr.slice(0, 300)}`);
      }
      return { ok: true };
    },

    async backupWorkspace({ runId }: { runId: string }): Promise<BackupWorkspaceResult> {
      const ctx = deps.system();
      const [done] = await ctx.db.select({ generation: workspaceBackups.generation }).from(workspaceBackups).where(eq(workspaceBackups.runId, runId));
      if (done) return { skipped: 'already_done' };
      const [run] = await ctx.db.select().from(runs).where(eq(runs.id, runId));
      if (!run) throw new Error(`run ${runId} does not exist`);
      const workspaceSessionId = await workspaceOwnerOf(ctx, run.sessionId);
      const [sandbox] = await ctx.db.select().from(sandboxes).where(eq(sandboxes.workspaceSessionId, workspaceSessionId));
      if (!sandbox) return { skipped: 'no_sandbox' };
      // A thread's backups stay with the connection its first backup used.
      const previous = await latestWorkspaceBackup(ctx, { projectId: run.projectId, workspaceSessionId });
      const provider = previous
        ? (await ctx.db.select().from(storageProviders).where(eq(storageProviders.id, previous.storageProviderId)))[0]
        : await findDefaultStorageProvider(ctx, run.organizationId);
      if (!provider || !keyring.configured) return { skipped: 'no_storage' };

      const archived = await createWorkspaceArchive(await driver.ensureWorkspace(sandbox.id));
      if (!archived.ok) {
        ctx.logger.warn('workspace too large to back up; the previous generation stays the latest', { runId, sandboxId: sandbox.id });
        return { skipped: 'too_large' };
      }
      const [top] = await ctx.db.select({ generation: max(workspaceBackups.generation) }).from(workspaceBackups).where(eq(workspaceBackups.workspaceSessionId, workspaceSessionId));
      const generation = (top?.generation ?? 0) + 1;
      const createdAt = ctx.clock.now();
      const archiveSha256 = createHash('sha256').update(archived.archive).digest('hex');
      const manifest: WorkspaceManifest = {
        formatVersion: MANIFEST_FORMAT_VERSION,
        workspaceSessionId,
        runId,
        generation,
        createdAt: createdAt.toISOString(),
        archive: { sizeBytes: archived.archive.length, sha256: archiveSha256 },
        files: archived.files,
      };
      const manifestBytes = serializeManifest(manifest);
      const keys = backupKeys(tenantRoot({ providerPrefix: provider.prefix, organizationId: run.organizationId, projectId: run.projectId }), workspaceSessionId, generation);
      const client = s3ClientFor(provider, keyring);
      try {
        await putObjectBytes(client, { bucket: provider.bucket, key: keys.archiveKey, bytes: archived.archive, contentType: 'application/x-tar' });
        await putObjectBytes(client, { bucket: provider.bucket, key: keys.manifestKey, bytes: manifestBytes, contentType: 'application/json' });
      } finally {
        client.destroy();
      }
      await ctx.db
        .insert(workspaceBackups)
        .values({
          organizationId: run.organizationId,
          projectId: run.projectId,
          workspaceSessionId,
          runId,
          generation,
          storageProviderId: provider.id,
          archiveKey: keys.archiveKey,
          archiveSizeBytes: archived.archive.length,
          archiveSha256,
          manifestKey: keys.manifestKey,
          manifestSha256: createHash('sha256').update(manifestBytes).digest('hex'),
          fileCount: archived.files.length,
          totalBytes: archived.files.reduce((sum, file) => sum + file.sizeBytes, 0),
          createdAt,
        })
        .onConflictDoNothing();
      return { generation };
    },
  };
}

export type WorkspaceSteps = ReturnType<typeof createWorkspaceSteps>;
