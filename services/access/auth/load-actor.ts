import { and, asc, eq, sql } from 'drizzle-orm';
import { prepared } from '../../../db/prepared.ts';
import type { Executor } from '../../../db/client.ts';
import { organizationMemberships, principals, projectMemberships, projects } from '../../../db/schema/index.ts';
import type { Actor } from '../../kernel/service-context.ts';

/**
 * The human (or service) actor for `input.subject` in `input.projectId`, or null when the subject has no
 * principal with a membership there. Roles come from stored memberships, never from scopes.
 */
export async function loadMemberActor({
  db,
  input,
}: {
  db: Executor;
  input: { organizationId: string; projectId: string; subject: string };
}): Promise<Actor | null> {
  const [row] = await db
    .select({
      principal: principals,
      projectRole: projectMemberships.role,
      organizationRole: organizationMemberships.role,
    })
    .from(principals)
    .innerJoin(projectMemberships, and(eq(projectMemberships.principalId, principals.id), eq(projectMemberships.projectId, principals.projectId)))
    .leftJoin(
      organizationMemberships,
      and(eq(organizationMemberships.organizationId, principals.organizationId), eq(organizationMemberships.subject, principals.subject)),
    )
    .where(and(eq(principals.organizationId, input.organizationId), eq(principals.projectId, input.projectId), eq(principals.subject, input.subject)))
    .limit(1);
  if (!row || row.principal.kind === 'api_key') return null;
  return {
    principalId: row.principal.id,
    organizationId: row.principal.organizationId,
    projectId: row.principal.projectId,
    kind: row.principal.kind,
    subject: row.principal.subject,
    scopes: row.principal.scopes,
    displayName: row.principal.displayName,
    organizationRole: row.organizationRole,
    projectRole: row.projectRole,
    apiKeyId: null,
  };
}

/** The organization's earliest-created project: where organization-level requests act. */
export async function earliestProjectId(db: Executor, organizationId: string): Promise<string | null> {
  const [row] = await db
    .select({ id: projects.id })
    .from(projects)
    .where(eq(projects.organizationId, organizationId))
    .orderBy(asc(projects.createdAt), asc(projects.id))
    .limit(1);
  return row?.id ?? null;
}

export async function projectOrganizationId({ db, input }: { db: Executor; input: { projectId: string } }): Promise<string | null> {
  const statement = prepared(db, 'project_organization_id', (db) =>
    db
      .select({ organizationId: projects.organizationId })
      .from(projects)
      .where(eq(projects.id, sql.placeholder('projectId')))
      .prepare('project_organization_id'),
  );
  const [row] = await statement.execute({ projectId: input.projectId });
  return row?.organizationId ?? null;
}
