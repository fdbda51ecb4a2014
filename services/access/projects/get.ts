import { and, eq } from 'drizzle-orm';
import { organizations, projects } from '../../../db/schema/index.ts';
import { ForbiddenError } from '../../../domain/errors.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import type { RetentionWindows } from '../../../domain/retention.ts';
import { effectiveRetentionResponse, toOrganizationResponse, toProjectResponse, type PublicOrganization, type PublicProject } from './public.ts';

export type ProjectDetail = PublicProject & { organization: PublicOrganization; effectiveRetention: PublicProject['retention'] };

/**
 * A project of the actor's organization with its organization and the retention windows that
 * apply to it (its overrides over the installation's defaults); 403 for any other project.
 */
export async function getProject({
  ctx,
  deps,
  input,
}: {
  ctx: ServiceContext;
  deps: { retention: RetentionWindows };
  input: { projectId: string };
}): Promise<ProjectDetail> {
  const actor = requireActor(ctx);
  const [row] = await ctx.db
    .select({ project: projects, organization: organizations })
    .from(projects)
    .innerJoin(organizations, eq(organizations.id, projects.organizationId))
    .where(and(eq(projects.id, input.projectId), eq(projects.organizationId, actor.organizationId)));
  if (!row) throw new ForbiddenError('The project is outside the principal organization');
  return {
    ...toProjectResponse(row.project),
    organization: toOrganizationResponse(row.organization),
    effectiveRetention: effectiveRetentionResponse(row.project, deps.retention),
  };
}

/** When the actor's project was created. */
export async function projectCreatedAt(ctx: ServiceContext): Promise<Date> {
  const [project] = await ctx.db
    .select({ createdAt: projects.createdAt })
    .from(projects)
    .where(eq(projects.id, requireActor(ctx).projectId));
  return project!.createdAt;
}
