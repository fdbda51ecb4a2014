import { and, asc, eq, ne } from 'drizzle-orm';
import type { Executor } from '../../../db/client.ts';
import { principals, projectMemberships, projects } from '../../../db/schema/index.ts';

/**
 * Where a person acts after signing in: `preferred` if they are a member there, else the
 * earliest project where they are one; null when they hold no membership at all.
 */
export async function firstMemberProject(db: Executor, organizationId: string, subject: string, preferred: string | null): Promise<string | null> {
  const rows = await db
    .select({ projectId: principals.projectId })
    .from(principals)
    .innerJoin(projectMemberships, eq(projectMemberships.principalId, principals.id))
    .innerJoin(projects, eq(projects.id, principals.projectId))
    .where(and(eq(principals.organizationId, organizationId), eq(principals.subject, subject), ne(principals.kind, 'api_key')))
    .orderBy(asc(projects.createdAt), asc(projects.id));
  if (preferred && rows.some((row) => row.projectId === preferred)) return preferred;
  return rows[0]?.projectId ?? null;
}
