import { and, asc, eq, ne } from 'drizzle-orm';
import type { Executor } from '../../../db/client.ts';
import { organizationMemberships, principals, projectMemberships } from '../../../db/schema/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { toMemberResponse, type PublicMember } from './public.ts';

const memberSelection = {
  id: principals.id,
  kind: principals.kind,
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

/** A member row with the principal kind, for the verbs (the response leaves kind out). */
export type MemberRecord = PublicMember & { kind: 'human' | 'service' | 'api_key' };

const toRecord = (row: Awaited<ReturnType<ReturnType<typeof memberQuery>['execute']>>[number]): MemberRecord => ({ ...toMemberResponse(row), kind: row.kind });

/** The member as the API shows it (the kind stays internal). */
export function publicMember(record: MemberRecord): PublicMember {
  const { kind: _kind, ...member } = record;
  return member;
}

/** Principals with a membership in the actor's project, with roles and scopes. */
export async function listMembers({ ctx }: { ctx: ServiceContext }): Promise<{ data: PublicMember[] }> {
  const actor = requireActor(ctx);
  const rows = await memberQuery(ctx.db, actor.projectId).orderBy(asc(projectMemberships.createdAt), asc(principals.id));
  return { data: rows.map(toMemberResponse) };
}

export async function findMember(db: Executor, projectId: string, memberId: string): Promise<MemberRecord | null> {
  const [row] = await memberQuery(db, projectId).where(and(eq(projectMemberships.projectId, projectId), eq(principals.id, memberId)));
  return row ? toRecord(row) : null;
}

export async function findMemberBySubject(db: Executor, projectId: string, subject: string): Promise<MemberRecord | null> {
  const [row] = await memberQuery(db, projectId).where(
    and(eq(projectMemberships.projectId, projectId), eq(principals.subject, subject), ne(principals.kind, 'api_key')),
  );
  return row ? toRecord(row) : null;
}

/** Project owners other than `principalId`. */
export async function countOtherProjectOwners(db: Executor, projectId: string, principalId: string): Promise<number> {
  const rows = await db
    .select({ id: projectMemberships.principalId })
    .from(projectMemberships)
    .where(and(eq(projectMemberships.projectId, projectId), eq(projectMemberships.role, 'owner'), ne(projectMemberships.principalId, principalId)));
  return rows.length;
}
