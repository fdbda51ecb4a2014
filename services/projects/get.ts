import { and, eq } from 'drizzle-orm';
import { organizations, projects } from '../../db/schema/index.ts';
import { ForbiddenError } from '../../domain/errors.ts';
import type { ServiceContext } from '../service-context.ts';
import { requireActor } from '../require-actor.ts';
import { toOrganizationResponse, toProjectResponse, type PublicOrganization, type PublicProject } from './public.ts';

/** A project of the actor's organization with its organization; 403 for any other project. */
export async function getProject({ ctx, input }: { ctx: ServiceContext; input: { projectId: string } }): Promise<PublicProject & { organization: PublicOrganization }> {
  const actor = requireActor(ctx);
  const [row] = await ctx.db
    .select({ project: projects, organization: organizations })
    .from(projects)
    .innerJoin(organizations, eq(organizations.id, projects.organizationId))
    .where(and(eq(projects.id, input.projectId), eq(projects.organizationId, actor.organizationId)));
  if (!row) throw new ForbiddenError('The project is outside the principal organization');
  return { ...toProjectResponse(row.project), organization: toOrganizationResponse(row.organization) };
}
