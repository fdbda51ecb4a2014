import { createHash } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { storedTypeProblem } from '../../domain/attachments/file-input.ts';
import { attachmentWorkspacePath } from '../../domain/attachments/metadata.ts';
import { SKILLS_WORKSPACE_DIR } from '../../domain/skills/catalog.ts';
import { renderSkillMd } from '../../domain/skills/skill-md.ts';
import type { Snapshot } from '../../domain/sandbox/snapshot-registry.ts';
import { MANIFEST_FORMAT_VERSION, serializeManifest, type WorkspaceManifest } from '../../domain/workspace-files/manifest.ts';
import type { CredentialKeyring } from '../../services/kernel/credentials/index.ts';
import type { RunSandbox } from '../../services/runtime/sandboxes/index.ts';
import { loadRunWorkspaceInputs, type RunWorkspaceInputs } from '../../services/runtime/sandboxes/index.ts';
import { planWorkspaceBackup } from '../../services/runtime/sandboxes/index.ts';
import { recordWorkspaceBackup } from '../../services/runtime/sandboxes/index.ts';
import type { ServiceContext } from '../../services/kernel/service-context.ts';
import { getObjectBytes, putObjectBytes } from '../../adapters/storage/objects.ts';
import type { StorageProviderRow } from '../../services/configuration/storage-providers/index.ts';
import { s3ClientFor, type StorageEndpointPolicy } from '../../services/configuration/storage-providers/index.ts';
import { verifyArchiveBytes } from '../../services/runtime/workspace-files/index.ts';
import type { BackupWorkspaceResult, PrepareWorkspaceResult } from '../run-activity-types.ts';
import { createWorkspaceArchive } from './backup/archive-writer.ts';
import type { LocalSandboxDriver } from './local/driver.ts';
import { execInTarget, snapshotOf } from './run-target.ts';

const COPY_TIMEOUT_MS = 60_000;

const sha256Of = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/**
 * The workspace steps around a run. Before its first model turn the session's sandbox exists
 * (restored from the latest backup when this worker has no copy), the session's Skills are in
 * `.svc/skills/<name>/` (read-only) and the run's attachments are in `.svc/attachments/<runId>/`, each verified on the way (type against the file rules, size and
 * SHA-256 against what was recorded at upload); after the run settles, the workspace is archived
 * with a manifest into the thread's storage connection as the next generation. The verbs decide
 * and record; these steps move the bytes (object storage, the sandbox). Both are idempotent
 * (keyed by run).
 */
export function createWorkspaceSteps(deps: {
  system: () => ServiceContext;
  driver: LocalSandboxDriver;
  snapshots: ReadonlyMap<string, Snapshot>;
  keyring: CredentialKeyring;
  storagePolicy: StorageEndpointPolicy;
}) {
  const { driver, keyring, storagePolicy } = deps;

  const exec = (target: RunSandbox, argv: string[], stdin?: Uint8Array) =>
    execInTarget(deps, target, argv, { timeoutMs: COPY_TIMEOUT_MS, ...(stdin ? { stdin } : {}) });

  const readObject = async (provider: StorageProviderRow, key: string): Promise<Buffer> => {
    const client = s3ClientFor(provider, keyring, storagePolicy);
    try {
      return await getObjectBytes(client, { bucket: provider.bucket, key });
    } finally {
      client.destroy();
    }
  };

  /** Unpacks the latest backup into an empty workspace (a new worker, or a wiped data disk). */
  const restoreIfEmpty = async (ctx: ServiceContext, inputs: RunWorkspaceInputs) => {
    const { target, latestBackup } = inputs;
    const workspace = await driver.ensureWorkspace(target.sandbox.id, snapshotOf(deps.snapshots, target).resource.diskMb);
    if (!latestBackup || (await readdir(workspace)).length > 0) return;
    const { backup, provider } = latestBackup;
    const archive = await readObject(provider, backup.archiveKey);
    if (verifyArchiveBytes(archive, { sizeBytes: backup.archiveSizeBytes, sha256: backup.archiveSha256 }) !== null) {
      ctx.logger.warn('workspace backup failed verification; starting with an empty workspace', {
        sandboxId: target.sandbox.id,
        generation: backup.generation,
      });
      return;
    }
    // tar runs inside the sandbox, so a hostile archive can only write where the sandbox can.
    const result = await exec(target, ['tar', '-x', '--no-same-owner', '--no-same-permissions', '-f', '-'], archive);
    if (result.exitCode !== 0) ctx.logger.warn('workspace restore failed', { sandboxId: target.sandbox.id, stderr: result.stderr.slice(0, 300) });
  };

  /**
   * The session's usable Skills under `.svc/skills/<name>/`, written afresh for every run (a
   * revoked version's files go, even when a backup brought them back) and made read-only.
   */
  const writeSkillFiles = async (inputs: RunWorkspaceInputs) => {
    const reset = await exec(inputs.target, ['bash', '-c', 'chmod -R u+w -- "$1" 2>/dev/null; rm -rf -- "$1"', 'reset', SKILLS_WORKSPACE_DIR]);
    if (reset.exitCode !== 0) throw new Error(`clearing the Skill files failed: ${reset.stderr.slice(0, 300)}`);
    if (inputs.skills.length === 0) return;
    for (const skill of inputs.skills) {
      const files = [
        { path: 'SKILL.md', bytes: Buffer.from(renderSkillMd(skill), 'utf8') },
        ...skill.files.map((file) => ({ path: file.path, bytes: Buffer.from(file.dataBase64, 'base64') })),
      ];
      for (const file of files) {
        const destination = `${SKILLS_WORKSPACE_DIR}/${skill.name}/${file.path}`;
        const written = await exec(inputs.target, ['bash', '-c', 'mkdir -p -- "$(dirname -- "$1")" && cat > "$1"', 'copy', destination], file.bytes);
        if (written.exitCode !== 0) throw new Error(`copying a Skill file into the workspace failed: ${written.stderr.slice(0, 300)}`);
      }
    }
    const sealed = await exec(inputs.target, ['chmod', '-R', 'a-w', SKILLS_WORKSPACE_DIR]);
    if (sealed.exitCode !== 0) throw new Error(`making the Skill files read-only failed: ${sealed.stderr.slice(0, 300)}`);
  };

  return {
    prepareRunWorkspace: async ({ runId }: { runId: string }): Promise<PrepareWorkspaceResult> => {
      const ctx = deps.system();
      const inputs = await loadRunWorkspaceInputs({ ctx, input: { runId } });
      if (!inputs) return { ok: true };
      await restoreIfEmpty(ctx, inputs);
      for (const { file, provider } of inputs.attachments) {
        const typeProblem = storedTypeProblem(file);
        if (typeProblem) return { ok: false, errorCode: 'attachment_integrity_failed', errorExplanation: `${typeProblem}.` };
        if (!provider)
          return { ok: false, errorCode: 'attachment_unavailable', errorExplanation: `The storage connection holding "${file.filename}" no longer exists.` };
        let bytes: Buffer;
        try {
          bytes = await readObject(provider, file.objectKey);
        } catch {
          return { ok: false, errorCode: 'attachment_unavailable', errorExplanation: `"${file.filename}" could not be read from storage.` };
        }
        if (bytes.length !== file.sizeBytes || sha256Of(bytes) !== file.sha256) {
          return {
            ok: false,
            errorCode: 'attachment_integrity_failed',
            errorExplanation: `"${file.filename}" in storage does not match the size and SHA-256 recorded when it was attached.`,
          };
        }
        const destination = attachmentWorkspacePath(runId, file.filename);
        const written = await exec(inputs.target, ['bash', '-c', 'mkdir -p -- "$(dirname -- "$1")" && cat > "$1"', 'copy', destination], bytes);
        if (written.exitCode !== 0) throw new Error(`copying an attachment into the workspace failed: ${written.stderr.slice(0, 300)}`);
      }
      await writeSkillFiles(inputs);
      return { ok: true };
    },

    backupWorkspace: async ({ runId }: { runId: string }): Promise<BackupWorkspaceResult> => {
      const ctx = deps.system();
      const plan = await planWorkspaceBackup({ ctx, deps: { keyring }, input: { runId } });
      if (plan.kind === 'skip') return { skipped: plan.reason };

      const archived = await createWorkspaceArchive(await driver.ensureWorkspace(plan.sandbox.id));
      if (!archived.ok) {
        ctx.logger.warn('workspace too large to back up; the previous generation stays the latest', { runId, sandboxId: plan.sandbox.id });
        return { skipped: 'too_large' };
      }
      const createdAt = ctx.clock.now();
      const archiveSha256 = sha256Of(archived.archive);
      const manifest: WorkspaceManifest = {
        formatVersion: MANIFEST_FORMAT_VERSION,
        workspaceSessionId: plan.workspaceSessionId,
        runId,
        generation: plan.generation,
        createdAt: createdAt.toISOString(),
        archive: { sizeBytes: archived.archive.length, sha256: archiveSha256 },
        files: archived.files,
      };
      const manifestBytes = serializeManifest(manifest);
      const client = s3ClientFor(plan.provider, keyring, storagePolicy);
      try {
        await putObjectBytes(client, { bucket: plan.provider.bucket, key: plan.archiveKey, bytes: archived.archive, contentType: 'application/x-tar' });
        await putObjectBytes(client, { bucket: plan.provider.bucket, key: plan.manifestKey, bytes: manifestBytes, contentType: 'application/json' });
      } finally {
        client.destroy();
      }
      await recordWorkspaceBackup({
        ctx,
        input: {
          organizationId: plan.organizationId,
          projectId: plan.projectId,
          workspaceSessionId: plan.workspaceSessionId,
          runId,
          generation: plan.generation,
          storageProviderId: plan.provider.id,
          archiveKey: plan.archiveKey,
          archiveSizeBytes: archived.archive.length,
          archiveSha256,
          manifestKey: plan.manifestKey,
          manifestSha256: sha256Of(manifestBytes),
          fileCount: archived.files.length,
          totalBytes: archived.files.reduce((sum, file) => sum + file.sizeBytes, 0),
          createdAt,
        },
      });
      return { generation: plan.generation };
    },
  };
}

export type WorkspaceSteps = ReturnType<typeof createWorkspaceSteps>;
