import { workspaceBackups } from '../../../db/schema/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';

export type RecordWorkspaceBackupInput = {
  organizationId: string;
  projectId: string;
  workspaceSessionId: string;
  runId: string;
  generation: number;
  storageProviderId: string;
  archiveKey: string;
  archiveSizeBytes: number;
  archiveSha256: string;
  manifestKey: string;
  manifestSha256: string;
  fileCount: number;
  totalBytes: number;
  createdAt: Date;
};

/**
 * Records a backup generation whose archive and manifest are already stored (for the runtime):
 * from this commit on, the session's files list and downloads serve it. Idempotent: a second
 * record of the same run or generation changes nothing.
 */
export async function recordWorkspaceBackup({ ctx, input }: { ctx: ServiceContext; input: RecordWorkspaceBackupInput }): Promise<void> {
  await ctx.db.insert(workspaceBackups).values(input).onConflictDoNothing();
}
