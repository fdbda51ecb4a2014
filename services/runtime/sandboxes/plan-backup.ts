import { eq, max } from 'drizzle-orm';
import { runs, sandboxes, storageProviders, workspaceBackups } from '../../../db/schema/index.ts';
import { NotFoundError } from '../../../domain/errors.ts';
import { tenantRoot } from '../../../domain/storage/paths.ts';
import type { CredentialKeyring } from '../../kernel/credentials/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { findDefaultStorageProvider } from '../../configuration/storage-providers/index.ts';
import type { StorageProviderRow } from '../../configuration/storage-providers/index.ts';
import { backupKeys, latestWorkspaceBackup } from './backups.ts';
import type { SandboxRow } from './ensure.ts';
import { workspaceOwnerOf } from './ensure.ts';

export type WorkspaceBackupPlan =
  | { kind: 'skip'; reason: 'already_done' | 'no_sandbox' | 'no_storage' }
  | {
      kind: 'backup';
      organizationId: string;
      projectId: string;
      runId: string;
      workspaceSessionId: string;
      sandbox: SandboxRow;
      provider: StorageProviderRow;
      generation: number;
      archiveKey: string;
      manifestKey: string;
    };

/**
 * Decides whether and where a settling run's workspace is backed up (for the runtime): once per
 * run (a run with a backup is `already_done`), only when the workspace has a sandbox, into the
 * connection of the thread's first backup (a thread's backups stay with it) or else the
 * organization's default, as the next generation. 404 when the run is gone.
 */
export async function planWorkspaceBackup({
  ctx,
  deps,
  input,
}: {
  ctx: ServiceContext;
  deps: { keyring: CredentialKeyring };
  input: { runId: string };
}): Promise<WorkspaceBackupPlan> {
  const [done] = await ctx.db.select({ generation: workspaceBackups.generation }).from(workspaceBackups).where(eq(workspaceBackups.runId, input.runId));
  if (done) return { kind: 'skip', reason: 'already_done' };
  const [run] = await ctx.db.select().from(runs).where(eq(runs.id, input.runId));
  if (!run) throw new NotFoundError('No run with that id');
  const workspaceSessionId = await workspaceOwnerOf(ctx, run.sessionId);
  const [sandbox] = await ctx.db.select().from(sandboxes).where(eq(sandboxes.workspaceSessionId, workspaceSessionId));
  if (!sandbox) return { kind: 'skip', reason: 'no_sandbox' };
  const previous = await latestWorkspaceBackup(ctx, { projectId: run.projectId, workspaceSessionId });
  const provider = previous
    ? (await ctx.db.select().from(storageProviders).where(eq(storageProviders.id, previous.storageProviderId)))[0]
    : await findDefaultStorageProvider(ctx, run.organizationId);
  if (!provider || !deps.keyring.configured) return { kind: 'skip', reason: 'no_storage' };
  const [top] = await ctx.db
    .select({ generation: max(workspaceBackups.generation) })
    .from(workspaceBackups)
    .where(eq(workspaceBackups.workspaceSessionId, workspaceSessionId));
  const generation = (top?.generation ?? 0) + 1;
  const keys = backupKeys(
    tenantRoot({ providerPrefix: provider.prefix, organizationId: run.organizationId, projectId: run.projectId }),
    workspaceSessionId,
    generation,
  );
  return {
    kind: 'backup',
    organizationId: run.organizationId,
    projectId: run.projectId,
    runId: run.id,
    workspaceSessionId,
    sandbox,
    provider,
    generation,
    ...keys,
  };
}
