import { and, eq, ne } from 'drizzle-orm';
import { organizationMemberships } from '../../../db/schema/index.ts';
import { ConflictError, ForbiddenError } from '../../../domain/errors.ts';
import { refuseMembershipChange } from '../../../domain/members.ts';
import type { Role } from '../../../domain/scopes.ts';
import { ungrantableScopes } from '../../../domain/scopes.ts';
import { lockOrganizationRole } from '../auth/index.ts';
import type { Actor, ServiceContext } from '../../kernel/service-context.ts';

export { lockOrganizationRole };
import { NotFoundError } from '../../../domain/errors.ts';
import { findMember, type MemberRecord } from './read.ts';

/**
 * The member a change is about, with its organization role read under the lock (a project
 * member without an organization row falls back to its project role). API key mirrors are not
 * members.
 */
export async function lockChangeTarget(tx: ServiceContext, actor: Actor, memberId: string): Promise<{ target: MemberRecord; organizationRole: Role }> {
  const target = await findMember(tx.db, actor.projectId, memberId);
  if (!target || target.kind === 'api_key') throw new NotFoundError('No member with that id in this project');
  const organizationRole = (await lockOrganizationRole(tx, actor.organizationId, target.subject)) ?? target.role;
  return { target, organizationRole };
}

/**
 * Throws unless `actor` may give `target` the role `nextRole` (null: remove them), per the grant
 * matrix of spec 3 "Roles" rule 3. `ownersLeft` counts the owners that remain besides the target
 * (organization owners, or project owners for a one-project removal); it defaults to a count of
 * the other organization owners.
 */
export async function assertMembershipChange(
  tx: ServiceContext,
  actor: Actor,
  target: { subject: string; organizationRole: Role | null } | null,
  nextRole: Role | null,
  ownersLeft?: number,
): Promise<void> {
  const others = ownersLeft ?? (target?.organizationRole === 'owner' ? await countOtherOrganizationOwners(tx, actor.organizationId, target.subject) : 1);
  const refusal = refuseMembershipChange(actor, target, nextRole, others);
  if (refusal?.status === 409) throw new ConflictError(refusal.message);
  if (refusal) throw new ForbiddenError(refusal.message);
}

/** A granter hands out only scopes it holds (`*` permits any). */
export function assertCanGrantScopes(actor: Actor, scopes: readonly string[]): void {
  const ungrantable = ungrantableScopes(actor.scopes, scopes as never);
  if (ungrantable.length > 0)
    throw new ForbiddenError(`The principal cannot grant scopes it does not hold: ${ungrantable.join(', ')}`, { ungrantableScopes: ungrantable });
}

async function countOtherOrganizationOwners(tx: ServiceContext, organizationId: string, subject: string): Promise<number> {
  const rows = await tx.db
    .select({ subject: organizationMemberships.subject })
    .from(organizationMemberships)
    .where(
      and(eq(organizationMemberships.organizationId, organizationId), eq(organizationMemberships.role, 'owner'), ne(organizationMemberships.subject, subject)),
    );
  return rows.length;
}
