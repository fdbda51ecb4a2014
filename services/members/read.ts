import { and, asc, eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { organizationMemberships, principals, projectMemberships } from '../../db/schema/index.ts';
import type { ServiceContext } from '../service-context.ts';
import { requireActor } from '../require-actor.ts';
import { toMemberResponse, type PublicMember } from './public.ts';

const memberSelection = {
  id: principals.id,
  subject: principals.subject,
  scopes: principals.scopes,
  displayName: principals.displayName,
  email: principals.email,
  role: projectMemberships.role,
  organizationRole: organizationMemberships.role,
};

function memberQuery(db: Executor, projectId: string) {
  return db
    .select(memberSelection)
    .from(projectMemberships)
    .innerJoin(principals, eq(principals.id, projectMemberships.principalId))
    .leftJoin(
      organizationMemberships,
      and(eq(organizationMemberships.organizationId, principals.organizationId), eq(organizationMemberships.subject, principals.subject)),
    )
    .where(eq(projectMemberships.projectId, projectId))
    .$dynamic();
}

/** Principals with a membership in the actor's project, with roles and scopes. */
export async function listMembers({ ctx }: { ctx: ServiceContext }): Promise<{ data: PublicMember[] }> {
  const actor = requireActor(ctx);
  const rows = await memberQuery(ctx.db, actor.projectId).orderBy(asc(projectMemberships.createdAt), asc(principals.id));
  return { data: rows.map(toMemberResponse) };
}

export async function findMember(db: Executor, projectId: string, memberId: string): Promise<PublicMember | null> {
  const [row] = await memberQuery(db, projectId).where(and(eq(projectMemberships.projectId, projectId), eq(principals.id, memberId)));
  return row ? toMemberResponse(row) : null;
}

export async function countOwners(db: Executor, projectId: string): Promise<number> {
  const rows = await db
    .select({ id: projectMemberships.principalId })
    .from(projectMemberships)
    .where(and(eq(projectMemberships.projectId, projectId), eq(projectMemberships.role, 'owner')));
  return rows.length;
}
