import { ForbiddenError } from '../../domain/errors.ts';
import { hasScope, isOrganizationAdministrator } from '../../domain/scopes.ts';
import type { Actor } from '../context.ts';

/**
 * Organization administration (project create/delete, API key issuance, restore): an API key
 * qualifies through `project:admin` or `*`; a human or service principal also needs
 * organization role owner or admin (spec 2 rule 1, spec 3 "API keys" rule 3).
 */
export function assertOrganizationAdministrator(actor: Actor): void {
  if (!hasScope(actor.scopes, 'project:admin')) {
    throw new ForbiddenError('The principal lacks the required scope: project:admin', { requiredScopes: ['project:admin'], missingScopes: ['project:admin'] });
  }
  if (actor.kind !== 'api_key' && !isOrganizationAdministrator(actor.organizationRole)) {
    throw new ForbiddenError('An organization owner or admin role is required');
  }
}
