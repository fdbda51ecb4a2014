import { ForbiddenError } from '../../../domain/errors.ts';
import { assertHasScopes, isOrganizationAdministrator } from '../../../domain/scopes.ts';
import type { Actor } from '../../kernel/service-context.ts';

/**
 * Organization administration (project create/delete, API key issuance, restore): an API key
 * qualifies through `project:admin` or `*`; a human or service principal also needs
 * organization role owner or admin (spec 2 rule 1, spec 3 "API keys" rule 3).
 */
export function assertOrganizationAdministrator(actor: Actor): void {
  assertHasScopes(actor.scopes, ['project:admin']);
  if (actor.kind !== 'api_key' && !isOrganizationAdministrator(actor.organizationRole)) {
    throw new ForbiddenError('An organization owner or admin role is required');
  }
}
