import * as v from 'valibot';
import { principals, projectMemberships, projects } from '../../../db/schema/index.ts';
import { ConflictError } from '../../../domain/errors.ts';
import { CreateProjectInput } from '../../../domain/projects.ts';
import { recordAudit } from '../../kernel/audit/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { isUniqueViolation } from '../../kernel/unique-violation.ts';
import { assertOrganizationAdministrator } from './authorize.ts';
import { toProjectResponse, type PublicProject } from './public.ts';

/**
 * Creates a project in the actor's organization. A human creator is provisioned into it in
 * the same transaction: a principal copy with the same scopes and an `owner` membership.
 */
export async function createProject({ ctx, input }: { ctx: ServiceContext; input: CreateProjectInput }): Promise<PublicProject> {
  const actor = requireActor(ctx);
  assertOrganizationAdministrator(actor);
  const { slug, name } = v.parse(CreateProjectInput, input);
  return withTransaction(ctx, async (tx) => {
    let project;
    try {
      [project] = await tx.db.insert(projects).values({ organizationId: actor.organizationId, slug, name, createdAt: tx.clock.now() }).returning();
    } catch (error) {
      if (isUniqueViolation(error)) throw new ConflictError(`A project with slug "${slug}" already exists in this organization`);
      throw error;
    }
    if (actor.kind !== 'api_key') {
      const [principal] = await tx.db
        .insert(principals)
        .values({
          organizationId: actor.organizationId,
          projectId: project!.id,
          kind: actor.kind,
          subject: actor.subject,
          scopes: actor.scopes,
          displayName: actor.displayName,
        })
        .returning();
      await tx.db
        .insert(projectMemberships)
        .values({ organizationId: actor.organizationId, projectId: project!.id, principalId: principal!.id, role: 'owner' });
    }
    await recordAudit(tx, { projectId: project!.id, action: 'project.created', targetType: 'project', targetId: project!.id, details: { slug } });
    return toProjectResponse(project!);
  });
}
