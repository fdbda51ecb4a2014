import { and, desc, eq } from 'drizzle-orm';
import { workspaceBackups } from '../../../db/schema/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';

export type WorkspaceBackupRow = typeof workspaceBackups.$inferSelect;

/** The newest completed backup of a workspace, if any (the only generation ever served). */
export async function latestWorkspaceBackup(ctx: ServiceContext, input: { projectId: string; workspaceSessionId: string }): Promise<WorkspaceBackupRow | null> {
  const [row] = await ctx.db
    .select()
    .from(workspaceBackups)
    .where(and(eq(workspaceBackups.workspaceSessionId, input.workspaceSessionId), eq(workspaceBackups.projectId, input.projectId)))
    .orderBy(desc(workspaceBackups.generation))
    .limit(1);
  return row ?? null;
}

/** The object keys of one backup generation, under the project's tenant root. */
export function backupKeys(root: string, workspaceSessionId: string, generation: number) {
  const folder = `${root}workspace-backups/${workspaceSessionId}/${generation}/`;
  return { archiveKey: `${folder}workspace.tar`, manifestKey: `${folder}manifest.json` };
}
