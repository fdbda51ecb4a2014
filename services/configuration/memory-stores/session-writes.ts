import { and, asc, eq, isNotNull } from 'drizzle-orm';
import { memoryVersions } from '../../../db/schema/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';

/** The memory versions a session's runs wrote, oldest first, without content (the session detail's `memoryWrites`). */
export async function sessionMemoryWrites(ctx: ServiceContext, input: { projectId: string; sessionId: string }) {
  const rows = await ctx.db
    .select({
      runId: memoryVersions.runId,
      storeId: memoryVersions.storeId,
      memoryId: memoryVersions.memoryId,
      versionId: memoryVersions.id,
      operation: memoryVersions.operation,
      path: memoryVersions.path,
      contentSizeBytes: memoryVersions.contentSizeBytes,
      createdAt: memoryVersions.createdAt,
    })
    .from(memoryVersions)
    .where(and(eq(memoryVersions.sessionId, input.sessionId), eq(memoryVersions.projectId, input.projectId), isNotNull(memoryVersions.runId)))
    .orderBy(asc(memoryVersions.createdAt), asc(memoryVersions.id));
  return rows.map((row) => ({ ...row, runId: row.runId!, createdAt: row.createdAt.toISOString() }));
}
