import * as v from 'valibot';
import { eq, and } from 'drizzle-orm';
import { principals, projectMemberships } from '../../db/schema/index.ts';
import { NotFoundError } from '../../domain/errors.ts';
import { lowersAccess, scopesForRole, UpdateMemberInput } from '../../domain/members.ts';
import { revokeKeysIssuedBy } from '../api-keys/revoke.ts';
import { recordAudit } from '../audit/record-audit.ts';
import type { ServiceContext } from '../service-context.ts';
import { requireActor } from '../require-actor.ts';
import { withTransaction } from '../transaction.ts';
import { assertCanChange, assertCanManageMembers, assertNotLastOwner } from './authorize.ts';
import type { PublicMember } from './public.ts';
import { countOwners, findMember } from './read.ts';

/** Changes a member's project role and/or scopes; lowering access revokes keys they issued. */
export async function updateMember({ ctx, input }: { ctx: ServiceContext; input: { memberId: string } & UpdateMemberInput }): Promise<PublicMember> {
  const actor = requireActor(ctx);
  assertCanManageMembers(actor);
  const changes = v.parse(UpdateMemberInput, { role: input.role, scopes: input.scopes });
  return withTransaction(ctx, async (tx) => {
    const target = await findMember(tx.db, actor.projectId, input.memberId);
    if (!target) throw new NotFoundError('No member with that id in this project');
    const role = changes.role ?? target.role;
    const scopes = scopesForRole(role, changes.scopes ?? target.scopes);
    assertCanChange(actor, target, { role, scopes });
    assertNotLastOwner(target, await countOwners(tx.db, actor.projectId), role);
    await tx.db.update(principals).set({ scopes }).where(eq(principals.id, target.id));
    await tx.db
      .update(projectMemberships)
      .set({ role })
      .where(and(eq(projectMemberships.projectId, actor.projectId), eq(projectMemberships.principalId, target.id)));
    if (lowersAccess(target, { role, scopes })) await revokeKeysIssuedBy(tx, { organizationId: actor.organizationId, subject: target.subject });
    await recordAudit(tx, { action: 'member.updated', targetType: 'principal', targetId: target.id, details: { role, scopes } });
    return (await findMember(tx.db, actor.projectId, target.id))!;
  });
}
