import { and, eq } from 'drizzle-orm';
import { projectMemberships } from '../../../db/schema/index.ts';
import { ConflictError, NotFoundError } from '../../../domain/errors.ts';
import { revokeKeysIssuedBy } from '../api-keys/index.ts';
import { recordAudit } from '../../kernel/audit/index.ts';
import { isDefaultProject } from '../auth/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { assertMembershipChange, lockChangeTarget } from './authorize.ts';

/**
 * Edge-proxy `DELETE /members/{id}/project-access`: removes this project's membership only; the
 * person keeps the organization and other projects. The default project's membership cannot be
 * removed (spec 3 "Roles" rule 4). Keys the person issued are revoked, since they reach this
 * project too (spec 3 "API keys" rule 6).
 */
export async function removeProjectAccess({
  ctx,
  deps,
  input,
}: {
  ctx: ServiceContext;
  deps: { authMode: string };
  input: { memberId: string };
}): Promise<{ id: string; removed: true }> {
  const actor = requireActor(ctx);
  if (deps.authMode !== 'edge_proxy') throw new NotFoundError('Removing project access exists in edge-proxy mode only; use DELETE on the member');
  return withTransaction(ctx, async (tx) => {
    const { target, organizationRole } = await lockChangeTarget(tx, actor, input.memberId);
    // The person stays in the organization, so no owner count changes.
    await assertMembershipChange(tx, actor, { subject: target.subject, organizationRole }, null, 1);
    if (await isDefaultProject(tx.db, actor.projectId)) throw new ConflictError("The default project's membership cannot be removed");
    await tx.db.delete(projectMemberships).where(and(eq(projectMemberships.projectId, actor.projectId), eq(projectMemberships.principalId, target.id)));
    await revokeKeysIssuedBy(tx, { organizationId: actor.organizationId, subject: target.subject });
    await recordAudit(tx, { action: 'member.project_access_removed', targetType: 'principal', targetId: target.id, details: { subject: target.subject } });
    return { id: target.id, removed: true as const };
  });
}
