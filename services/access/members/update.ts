import { eq } from 'drizzle-orm';
import { principals } from '../../../db/schema/index.ts';
import { ValidationError } from '../../../domain/errors.ts';
import { lowersAccess, scopesForRole, type UpdateMemberInput } from '../../../domain/members.ts';
import { revokeKeysIssuedBy } from '../api-keys/index.ts';
import { recordAudit } from '../../kernel/audit/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { assertCanGrantScopes, assertMembershipChange, lockChangeTarget } from './authorize.ts';
import type { PublicMember } from './public.ts';
import { findMember, publicMember } from './read.ts';
import { setOrganizationRole } from './set-organization-role.ts';

/**
 * `PATCH /members/{id}`: a new role changes the person's organization role, scopes and every
 * project membership in one audited transaction (spec 3 "Roles" rule 4); `scopes` (not in
 * edge-proxy mode, where the body is `{role}`) narrows this project's scopes within the role's
 * profile. Lowering access revokes the keys they issued (spec 3 "API keys" rule 6).
 */
export async function updateMember({ ctx, input }: { ctx: ServiceContext; input: { memberId: string } & UpdateMemberInput }): Promise<PublicMember> {
  const actor = requireActor(ctx);
  return withTransaction(ctx, async (tx) => {
    const { target: found, organizationRole } = await lockChangeTarget(tx, actor, input.memberId);
    const target = { subject: found.subject, organizationRole };
    const role = input.role ?? organizationRole;
    const { scopes, outside } = scopesForRole(role, input.scopes ?? (input.role ? undefined : found.scopes));
    if (outside.length > 0) throw new ValidationError(`The ${role} role cannot hold: ${outside.join(', ')}`, { path: 'body.scopes' });
    await assertMembershipChange(tx, actor, target, role);
    assertCanGrantScopes(actor, scopes);

    if (input.role) await setOrganizationRole(tx, { organizationId: actor.organizationId, subject: found.subject, role });
    await tx.db.update(principals).set({ scopes }).where(eq(principals.id, found.id));
    if (lowersAccess({ role: organizationRole, scopes: found.scopes }, { role, scopes })) {
      await revokeKeysIssuedBy(tx, { organizationId: actor.organizationId, subject: found.subject });
    }
    await recordAudit(tx, { action: 'member.updated', targetType: 'principal', targetId: found.id, details: { subject: found.subject, role, scopes } });
    return publicMember((await findMember(tx.db, actor.projectId, found.id))!);
  });
}
