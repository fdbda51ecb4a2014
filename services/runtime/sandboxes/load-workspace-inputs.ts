import { asc, eq, inArray } from 'drizzle-orm';
import { attachments, runs, storageProviders } from '../../../db/schema/index.ts';
import { loadSessionSkills, usableSkills, type SessionSkill } from '../runs/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import type { StorageProviderRow } from '../../configuration/storage-providers/index.ts';
import { latestWorkspaceBackup, type WorkspaceBackupRow } from './backups.ts';
import { ensureRunSandbox, type RunSandbox } from './ensure.ts';

export type AttachmentRow = typeof attachments.$inferSelect;

export type RunWorkspaceInputs = {
  target: RunSandbox;
  /** The newest backup generation, to unpack into a workspace this worker does not have. */
  latestBackup: { backup: WorkspaceBackupRow; provider: StorageProviderRow } | null;
  /** The run's attachments in submission order, each with the connection holding it (null when it is gone). */
  attachments: Array<{ file: AttachmentRow; provider: StorageProviderRow | null }>;
  /** The session's usable Skill versions (revoked ones left out), whose files the workspace shows read-only. */
  skills: SessionSkill[];
};

/**
 * What the runtime needs to prepare a run's workspace before its first model turn: the
 * session's sandbox (created on first use), the latest backup to restore from, the run's
 * attachments with their storage connections, and the session's usable Skills. Null when the pinned version has no sandbox.
 * Reads only (besides the sandbox row); the transfers are the caller's.
 */
export async function loadRunWorkspaceInputs({ ctx, input }: { ctx: ServiceContext; input: { runId: string } }): Promise<RunWorkspaceInputs | null> {
  const target = await ensureRunSandbox({ ctx, input: { runId: input.runId } });
  if (!target) return null;
  const backup = await latestWorkspaceBackup(ctx, { projectId: target.sandbox.projectId, workspaceSessionId: target.sandbox.workspaceSessionId });
  const files = await ctx.db.select().from(attachments).where(eq(attachments.runId, input.runId)).orderBy(asc(attachments.position));
  const [run] = await ctx.db.select({ sessionId: runs.sessionId }).from(runs).where(eq(runs.id, input.runId));
  const skills = usableSkills(await loadSessionSkills(ctx.db, run!.sessionId));
  const providerIds = [...new Set([...files.map((file) => file.storageProviderId), ...(backup ? [backup.storageProviderId] : [])])];
  const providers = providerIds.length === 0 ? [] : await ctx.db.select().from(storageProviders).where(inArray(storageProviders.id, providerIds));
  const byId = new Map(providers.map((provider) => [provider.id, provider]));
  const backupProvider = backup ? byId.get(backup.storageProviderId) : undefined;
  return {
    target,
    latestBackup: backup && backupProvider ? { backup, provider: backupProvider } : null,
    attachments: files.map((file) => ({ file, provider: byId.get(file.storageProviderId) ?? null })),
    skills,
  };
}
