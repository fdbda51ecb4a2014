import { ConflictError, ForbiddenError } from '../../domain/errors.ts';
import { canGrantRole } from '../../domain/members.ts';
import type { Role } from '../../domain/scopes.ts';
import { ungrantableScopes } from '../../domain/scopes.ts';
import type { Actor } from '../service-context.ts';
import { assertOrganizationAdministrator } from '../projects/authorize.ts';
import type { PublicMember } from './public.ts';

/**
 * Membership changes are made by authenticated humans who administer the organization; API keys
 * cannot grant human access (spec 3 "Roles" rule 3).
 */
export function assertCanManageMembers(actor: Actor): void {
  if (actor.kind !== 'human') throw new ForbiddenError('Only an authenticated person can change memberships');
  assertOrganizationAdministrator(actor);
}

export function assertCanChange(actor: Actor, target: PublicMember | null, next: { role: Role; scopes: string[] } | null): void {
  if (target && target.id === actor.principalId) throw new ForbiddenError('The active principal cannot change or remove itself');
  if (target?.role === 'owner' && actor.organizationRole !== 'owner') throw new ForbiddenError('Only an owner can change or remove an owner');
  if (next) {
    if (!canGrantRole(actor.organizationRole, next.role)) throw new ForbiddenError(`An organization ${next.role === 'owner' ? 'owner' : 'owner or admin'} role is required to grant ${next.role}`);
    const ungrantable = ungrantableScopes(actor.scopes, next.scopes as never);
    if (ungrantable.length > 0) throw new ForbiddenError(`The principal cannot grant scopes it does not hold: ${ungrantable.join(', ')}`, { ungrantableScopes: ungrantable });
  }
}

export function assertNotLastOwner(target: PublicMember, ownerCount: number, nextRole: Role | null): void {
  if (target.role === 'owner' && nextRole !== 'owner' && ownerCount <= 1) throw new ConflictError('The last owner cannot be removed or demoted');
}
