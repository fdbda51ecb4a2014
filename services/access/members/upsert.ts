import * as v from 'valibot';
import { ValidationError } from '../../../domain/errors.ts';
import { lowersAccess, scopesForRole, UpsertMemberInput } from '../../../domain/members.ts';
import { revokeKeysIssuedBy } from '../api-keys/index.ts';
import { recordAudit } from '../../kernel/audit/index.ts';
import { provisionMember } from '../auth/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { assertCanGrantScopes, assertMembershipChange, lockOrganizationRole } from './authorize.ts';
import type { PublicMember } from './public.ts';
import { findMember, findMemberBySubject, publicMember } from './read.ts';
import { setOrganizationRole } from './set-organization-role.ts';

/**
 * Non-edge-proxy `POST /members` `{subject, role, scopes?}`: gives the subject a membership in
 * the actor's project with the role's profile (narrowed to `scopes` when given). A subject that
 * already has another organization role changes role everywhere (spec 3 "Roles" rule 4).
 * Lowering someone's access revokes the API keys they issued.
 */
export async function upsertMember({ ctx, input }: { ctx: ServiceContext; input: UpsertMemberInput }): Promise<{ member: PublicMember; created: boolean }> {
  const actor = requireActor(ctx);
  const { subject, role, scopes: requested } = v.parse(UpsertMemberInput, input);
  const { scopes, outside } = scopesForRole(role, requested);
  if (outside.length > 0) throw new ValidationError(`The ${role} role cannot hold: ${outside.join(', ')}`, { path: 'body.scopes' });
  return withTransaction(ctx, async (tx) => {
    const organizationRole = await lockOrganizationRole(tx, actor.organizationId, subject);
    const existing = await findMemberBySubject(tx.db, actor.projectId, subject);
    await assertMembershipChange(tx, actor, organizationRole ? { subject, organizationRole } : null, role);
    assertCanGrantScopes(actor, scopes);

    if (organizationRole && organizationRole !== role) await setOrganizationRole(tx, { organizationId: actor.organizationId, subject, role });
    const principalId = await provisionMember(tx, {
      organizationId: actor.organizationId,
      projectId: actor.projectId,
      subject,
      kind: existing?.kind === 'service' ? 'service' : 'human',
      organizationRole: role,
      projectRole: role,
      scopes,
    });
    const before = existing ?? (organizationRole ? { role: organizationRole, scopes: [] } : null);
    if (before && lowersAccess(before, { role, scopes })) await revokeKeysIssuedBy(tx, { organizationId: actor.organizationId, subject });
    await recordAudit(tx, {
      action: existing ? 'member.updated' : 'member.created',
      targetType: 'principal',
      targetId: principalId,
      details: { subject, role, scopes },
    });
    return { member: publicMember((await findMember(tx.db, actor.projectId, principalId))!), created: !existing };
  });
}
