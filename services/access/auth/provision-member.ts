import { and, eq } from 'drizzle-orm';
import { organizationMemberships, principals, projectMemberships } from '../../../db/schema/index.ts';
import type { Role } from '../../../domain/scopes.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';

/**
 * Gives `subject` a principal and a membership in one project, and an organization membership
 * when it has none (an existing organization role is kept). Runs inside the caller's transaction.
 */
export async function provisionMember(
  tx: ServiceContext,
  input: {
    organizationId: string;
    projectId: string;
    subject: string;
    kind: 'human' | 'service';
    organizationRole: Role;
    projectRole: Role;
    scopes: string[];
    displayName?: string | null;
    email?: string | null;
  },
): Promise<string> {
  await tx.db
    .insert(organizationMemberships)
    .values({ organizationId: input.organizationId, subject: input.subject, role: input.organizationRole })
    .onConflictDoNothing();
  await tx.db
    .insert(principals)
    .values({
      organizationId: input.organizationId,
      projectId: input.projectId,
      kind: input.kind,
      subject: input.subject,
      scopes: input.scopes,
      displayName: input.displayName ?? null,
      email: input.email ?? null,
    })
    .onConflictDoUpdate({ target: [principals.projectId, principals.kind, principals.subject], set: { scopes: input.scopes } });
  const [principal] = await tx.db
    .select({ id: principals.id })
    .from(principals)
    .where(and(eq(principals.projectId, input.projectId), eq(principals.kind, input.kind), eq(principals.subject, input.subject)));
  await tx.db
    .insert(projectMemberships)
    .values({ organizationId: input.organizationId, projectId: input.projectId, principalId: principal!.id, role: input.projectRole })
    .onConflictDoUpdate({ target: [projectMemberships.projectId, projectMemberships.principalId], set: { role: input.projectRole } });
  return principal!.id;
}
