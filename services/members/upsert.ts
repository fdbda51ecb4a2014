import * as v from 'valibot';
import { and, eq } from 'drizzle-orm';
import { organizationMemberships, principals, projectMemberships } from '../../db/schema/index.ts';
import { lowersAccess, scopesForRole, UpsertMemberInput } from '../../domain/members.ts';
import { revokeKeysIssuedBy } from '../api-keys/revoke.ts';
import { recordAudit } from '../audit/record-audit.ts';
import type { ServiceContext } from '../service-context.ts';
import { requireActor } from '../require-actor.ts';
import { withTransaction } from '../transaction.ts';
import { assertCanChange, assertCanManageMembers, assertNotLastOwner } from './authorize.ts';
import type { PublicMember } from './public.ts';
import { countOwners, findMember } from './read.ts';

/**
 * Creates or updates a member of the actor's project: the subject's principal there (created
 * on first grant), its project role and scopes, and an organization membership when the subject
 * has none yet. Lowering someone's access revokes the API keys they issued.
 */
export async function upsertMember({ ctx, input }: { ctx: ServiceContext; input: UpsertMemberInput }): Promise<{ member: PublicMember; created: boolean }> {
  const actor = requireActor(ctx);
  assertCanManageMembers(actor);
  const { subject, role, scopes: requested } = v.parse(UpsertMemberInput, input);
  const scopes = scopesForRole(role, requested);
  return withTransaction(ctx, async (tx) => {
    const [existingPrincipal] = await tx.db
      .select({ id: principals.id })
      .from(principals)
      .where(and(eq(principals.projectId, actor.projectId), eq(principals.kind, 'human'), eq(principals.subject, subject)));
    const existing = existingPrincipal ? await findMember(tx.db, actor.projectId, existingPrincipal.id) : null;
    assertCanChange(actor, existing, { role, scopes });
    if (existing) assertNotLastOwner(existing, await countOwners(tx.db, actor.projectId), role);

    let principalId = existingPrincipal?.id;
    if (principalId) {
      await tx.db.update(principals).set({ scopes }).where(eq(principals.id, principalId));
    } else {
      const [created] = await tx.db
        .insert(principals)
        .values({ organizationId: actor.organizationId, projectId: actor.projectId, kind: 'human', subject, scopes })
        .returning({ id: principals.id });
      principalId = created!.id;
    }
    await tx.db
      .insert(projectMemberships)
      .values({ organizationId: actor.organizationId, projectId: actor.projectId, principalId, role })
      .onConflictDoUpdate({ target: [projectMemberships.projectId, projectMemberships.principalId], set: { role } });
    await tx.db.insert(organizationMemberships).values({ organizationId: actor.organizationId, subject, role }).onConflictDoNothing();

    if (existing && lowersAccess(existing, { role, scopes })) {
      await revokeKeysIssuedBy(tx, { organizationId: actor.organizationId, subject });
    }
    await recordAudit(tx, { action: existing ? 'member.updated' : 'member.created', targetType: 'principal', targetId: principalId, details: { subject, role, scopes } });
    return { member: (await findMember(tx.db, actor.projectId, principalId))!, created: !existing };
  });
}
