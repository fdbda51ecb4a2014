import { and, eq } from 'drizzle-orm';
import { organizationMemberships } from '../../../db/schema/index.ts';
import type { Role } from '../../../domain/scopes.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';

/**
 * Locks `subject`'s organization membership row and returns its role (null when it has none).
 * Role changes, removals and API key issuance all take this lock first, so key issuance is
 * serialized with role changes (spec 3 "API keys" rule 6).
 */
export async function lockOrganizationRole(tx: ServiceContext, organizationId: string, subject: string): Promise<Role | null> {
  const [row] = await tx.db
    .select({ role: organizationMemberships.role })
    .from(organizationMemberships)
    .where(and(eq(organizationMemberships.organizationId, organizationId), eq(organizationMemberships.subject, subject)))
    .for('update');
  return row?.role ?? null;
}
