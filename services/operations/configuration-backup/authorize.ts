import { ForbiddenError } from '../../../domain/errors.ts';
import type { Actor } from '../../kernel/service-context.ts';

/** Backups and restores act on the caller's own organization only (403 otherwise, like a foreign project). */
export function assertOwnOrganization(actor: Actor, organizationId: string): void {
  if (organizationId !== actor.organizationId) throw new ForbiddenError('The organization is not the principal organization');
}
