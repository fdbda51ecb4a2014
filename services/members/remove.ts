import { and, eq } from 'drizzle-orm';
import { projectMemberships } from '../../db/schema/index.ts';
import { NotFoundError } from '../../domain/errors.ts';
import { revokeKeysIssuedBy } from '../api-keys/revoke.ts';
import { recordAudit } from '../audit/record-audit.ts';
import type { ServiceContext } from '../service-context.ts';
import { requireActor } from '../require-actor.ts';
import { withTransaction } from '../transaction.ts';
import { assertCanChange, assertCanManageMembers, assertNotLastOwner } from './authorize.ts';
import { countOwners, findMember } from './read.ts';

/**
 * Removes a member's access to the actor's project. The principal row stays (runs and audit
 * entries reference it); the keys the person issued are revoked.
 */
export async function removeMember({ ctx, input }: { ctx: ServiceContext; input: { memberId: string } }): Promise<{ id: string; removed: true }> {
  const actor = requireActor(ctx);
  assertCanManageMembers(actor);
  return withTransaction(ctx, async (tx) => {
    const target = await findMember(tx.db, actor.projectId, input.memberId);
    if (!target) throw new NotFoundError('No member with that id in this project');
    assertCanChange(actor, target, null);
    assertNotLastOwner(target, await countOwners(tx.db, actor.projectId), null);
    await tx.db.delete(projectMemberships).where(and(eq(projectMemberships.projectId, actor.projectId), eq(projectMemberships.principalId, target.id)));
    await revokeKeysIssuedBy(tx, { organizationId: actor.organizationId, subject: target.subject });
    await recordAudit(tx, { action: 'member.removed', targetType: 'principal', targetId: target.id, details: { subject: target.subject } });
    return { id: target.id, removed: true as const };
  });
}
