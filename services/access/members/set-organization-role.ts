import { and, eq, inArray } from 'drizzle-orm';
import { organizationMemberships, principals, projectMemberships } from '../../../db/schema/index.ts';
import { ROLE_SCOPES } from '../../../domain/members.ts';
import type { Role } from '../../../domain/scopes.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';

/**
 * One person's new role everywhere at once (spec 3 "Roles" rule 4): the organization membership,
 * every project membership and every project principal's scopes (the role's profile). Runs in
 * the caller's transaction, after it took the organization membership lock.
 */
export async function setOrganizationRole(tx: ServiceContext, input: { organizationId: string; subject: string; role: Role }): Promise<void> {
  await tx.db
    .update(organizationMemberships)
    .set({ role: input.role })
    .where(and(eq(organizationMemberships.organizationId, input.organizationId), eq(organizationMemberships.subject, input.subject)));
  const people = await personPrincipalIds(tx, input.organizationId, input.subject);
  if (people.length === 0) return;
  await tx.db
    .update(principals)
    .set({ scopes: [...ROLE_SCOPES[input.role]] })
    .where(inArray(principals.id, people));
  await tx.db.update(projectMemberships).set({ role: input.role }).where(inArray(projectMemberships.principalId, people));
}

/** The person's (or service's) principals in every project of the organization; never API key mirrors. */
export async function personPrincipalIds(tx: ServiceContext, organizationId: string, subject: string): Promise<string[]> {
  const rows = await tx.db
    .select({ id: principals.id, kind: principals.kind })
    .from(principals)
    .where(and(eq(principals.organizationId, organizationId), eq(principals.subject, subject)));
  return rows.filter((row) => row.kind !== 'api_key').map((row) => row.id);
}
