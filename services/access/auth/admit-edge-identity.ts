import { and, eq } from 'drizzle-orm';
import type { Executor } from '../../../db/client.ts';
import { identities, organizationMemberships } from '../../../db/schema/index.ts';
import { ForbiddenError } from '../../../domain/errors.ts';
import { ROLE_SCOPES } from '../../../domain/members.ts';
import { recordAudit } from '../../kernel/audit/index.ts';
import type { Actor, ServiceContext } from '../../kernel/service-context.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import type { EdgeIdentity } from './edge-assertion.ts';
import { claimOwnership, lockInstallation, readInstallation } from './installation.ts';
import { loadMemberActor } from './load-actor.ts';
import { firstMemberProject } from './member-projects.ts';
import { provisionMember } from './provision-member.ts';

/**
 * The actor for a verified edge identity. Known members resolve without writing: the preferred
 * (active) project, else the default project, else any project they are a member of. Anyone
 * else is admitted under the owner and member policy of spec 3 "Roles" rule 1 (see `admit`).
 */
export async function resolveEdgeActor({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { identity: EdgeIdentity; preferredProjectId: string | null };
}): Promise<Actor> {
  const { identity, preferredProjectId } = input;
  const current = await readInstallation(ctx.db);
  if (!current) throw new Error('The installation is not initialized');
  const actor = await findMemberActor(ctx.db, current.organizationId, identity.subject, [preferredProjectId, current.defaultProjectId]);
  return actor ?? admit(ctx, identity);
}

async function findMemberActor(db: Executor, organizationId: string, subject: string, candidates: Array<string | null>): Promise<Actor | null> {
  for (const projectId of candidates) {
    if (!projectId) continue;
    const actor = await loadMemberActor({ db, input: { organizationId, projectId, subject } });
    if (actor) return actor;
  }
  const projectId = await firstMemberProject(db, organizationId, subject, null);
  return projectId ? loadMemberActor({ db, input: { organizationId, projectId, subject } }) : null;
}

/**
 * First sight of a subject, one at a time under the installation lock: the first verified human
 * of a fresh installation takes the owner claim, later humans join as `member`; a service
 * identity is recorded but never admitted on its own. Someone seen before whose organization
 * membership was removed stays out (the identity row remembers them); someone who still has an
 * organization role but lost every project gets the default project back.
 */
async function admit(ctx: ServiceContext, identity: EdgeIdentity): Promise<Actor> {
  const outcome = await withTransaction(ctx, async (tx) => {
    const { organizationId, defaultProjectId } = await lockInstallation(tx);
    const [seen] = await tx.db
      .select()
      .from(identities)
      .where(and(eq(identities.organizationId, organizationId), eq(identities.subject, identity.subject)));
    const now = tx.clock.now();
    await tx.db
      .insert(identities)
      .values({
        organizationId,
        subject: identity.subject,
        kind: identity.kind,
        email: identity.email,
        displayName: identity.displayName,
        lastSignInAt: now,
        createdAt: now,
      })
      .onConflictDoUpdate({
        target: [identities.organizationId, identities.subject],
        set: { email: identity.email, displayName: identity.displayName, lastSignInAt: now },
      });
    const again = await findMemberActor(tx.db, organizationId, identity.subject, [defaultProjectId]);
    if (again) return { actor: again, joined: null };
    const [membership] = await tx.db
      .select({ role: organizationMemberships.role })
      .from(organizationMemberships)
      .where(and(eq(organizationMemberships.organizationId, organizationId), eq(organizationMemberships.subject, identity.subject)));
    let role = membership?.role;
    if (!role) {
      if (seen) return { refusal: 'Your access to this organization was removed; an owner or admin can add you again' };
      if (identity.kind !== 'human') {
        return { refusal: 'A service identity is not admitted on its own; an owner or admin adds it by email, or it uses an API key' };
      }
      role = (await claimOwnership(tx, identity.subject)) ? 'owner' : 'member';
    }
    if (!defaultProjectId) throw new Error('The installation has no default project');
    await provisionMember(tx, {
      organizationId,
      projectId: defaultProjectId,
      subject: identity.subject,
      kind: identity.kind,
      organizationRole: role,
      projectRole: role,
      scopes: [...ROLE_SCOPES[role]],
      displayName: identity.displayName,
      email: identity.email,
    });
    const actor = (await loadMemberActor({ db: tx.db, input: { organizationId, projectId: defaultProjectId, subject: identity.subject } }))!;
    await recordAudit(
      { ...tx, actor },
      {
        action: role === 'owner' && !membership ? 'member.claimed_ownership' : 'member.joined',
        targetType: 'principal',
        targetId: actor.principalId,
        details: { subject: identity.subject, role },
      },
    );
    return { actor, joined: role };
  });
  if ('refusal' in outcome) throw new ForbiddenError(outcome.refusal!);
  return outcome.actor;
}
