import { and, eq, inArray } from 'drizzle-orm';
import { organizationMemberships, projectMemberships } from '../../../db/schema/index.ts';
import { revokeKeysIssuedBy } from '../api-keys/index.ts';
import { recordAudit } from '../../kernel/audit/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { assertMembershipChange, lockChangeTarget } from './authorize.ts';
import { countOtherProjectOwners } from './read.ts';
import { personPrincipalIds } from './set-organization-role.ts';

/**
 * `DELETE /members/{id}`. Edge-proxy mode removes the person from the organization: its
 * organization membership and every project membership (spec 3 "Roles" rule 4). Other modes
 * remove this project's membership, and the organization membership with the last one. Either
 * way the principal and identity rows stay (runs and audit entries reference them; a removed
 * person does not rejoin on their own) and the keys the person issued are revoked.
 */
export async function removeMember({
  ctx,
  deps,
  input,
}: {
  ctx: ServiceContext;
  deps: { authMode: string };
  input: { memberId: string };
}): Promise<{ id: string; removed: true }> {
  const actor = requireActor(ctx);
  return withTransaction(ctx, async (tx) => {
    const { target, organizationRole } = await lockChangeTarget(tx, actor, input.memberId);
    const people = await personPrincipalIds(tx, actor.organizationId, target.subject);
    if (deps.authMode === 'edge_proxy') {
      await assertMembershipChange(tx, actor, { subject: target.subject, organizationRole }, null);
      await tx.db.delete(projectMemberships).where(inArray(projectMemberships.principalId, people));
    } else {
      const projectOwnersLeft = target.role === 'owner' ? await countOtherProjectOwners(tx.db, actor.projectId, target.id) : 1;
      await assertMembershipChange(
        tx,
        actor,
        { subject: target.subject, organizationRole: target.role === 'owner' ? 'owner' : organizationRole },
        null,
        projectOwnersLeft,
      );
      await tx.db.delete(projectMemberships).where(and(eq(projectMemberships.projectId, actor.projectId), eq(projectMemberships.principalId, target.id)));
    }
    const remaining = await tx.db
      .select({ id: projectMemberships.principalId })
      .from(projectMemberships)
      .where(inArray(projectMemberships.principalId, people))
      .limit(1);
    if (remaining.length === 0) {
      await tx.db
        .delete(organizationMemberships)
        .where(and(eq(organizationMemberships.organizationId, actor.organizationId), eq(organizationMemberships.subject, target.subject)));
    }
    await revokeKeysIssuedBy(tx, { organizationId: actor.organizationId, subject: target.subject });
    await recordAudit(tx, {
      action: 'member.removed',
      targetType: 'principal',
      targetId: target.id,
      details: { subject: target.subject, organizationAccess: remaining.length > 0 },
    });
    return { id: target.id, removed: true as const };
  });
}
