import { and, desc, eq } from 'drizzle-orm';
import * as v from 'valibot';
import { identities } from '../../../db/schema/index.ts';
import { NotFoundError } from '../../../domain/errors.ts';
import { AddMemberByEmailInput, ROLE_SCOPES } from '../../../domain/members.ts';
import { recordAudit } from '../../kernel/audit/index.ts';
import { provisionMember } from '../auth/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { assertCanGrantScopes, assertMembershipChange, lockOrganizationRole } from './authorize.ts';
import type { PublicMember } from './public.ts';
import { findMember, findMemberBySubject, publicMember } from './read.ts';

/**
 * Edge-proxy `POST /members` `{email}` (spec 2 rule 3): copies someone who already completed a
 * verified sign-in into the actor's project with their stored organization role and its scope
 * profile. It never invites anyone. Someone whose organization access was removed comes back
 * as `member`: an administrator's explicit act, not a reopened claim.
 */
export async function addMemberByEmail({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: AddMemberByEmailInput;
}): Promise<{ member: PublicMember; created: boolean }> {
  const actor = requireActor(ctx);
  const { email } = v.parse(AddMemberByEmailInput, input);
  return withTransaction(ctx, async (tx) => {
    const [identity] = await tx.db
      .select()
      .from(identities)
      .where(and(eq(identities.organizationId, actor.organizationId), eq(identities.email, email)))
      .orderBy(desc(identities.lastSignInAt))
      .limit(1);
    if (!identity) throw new NotFoundError('Nobody with that email has completed a verified sign-in yet; they sign in once through the edge first');
    const organizationRole = await lockOrganizationRole(tx, actor.organizationId, identity.subject);
    const role = organizationRole ?? 'member';
    await assertMembershipChange(tx, actor, { subject: identity.subject, organizationRole }, role);
    const existing = await findMemberBySubject(tx.db, actor.projectId, identity.subject);
    if (existing) return { member: publicMember(existing), created: false };
    const scopes = [...ROLE_SCOPES[role]];
    assertCanGrantScopes(actor, scopes);
    const principalId = await provisionMember(tx, {
      organizationId: actor.organizationId,
      projectId: actor.projectId,
      subject: identity.subject,
      kind: identity.kind,
      organizationRole: role,
      projectRole: role,
      scopes,
      displayName: identity.displayName,
      email: identity.email,
    });
    await recordAudit(tx, { action: 'member.created', targetType: 'principal', targetId: principalId, details: { subject: identity.subject, role } });
    return { member: publicMember((await findMember(tx.db, actor.projectId, principalId))!), created: true };
  });
}
