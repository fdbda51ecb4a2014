import { and, eq } from 'drizzle-orm';
import { organizations, projects } from '../../db/schema/index.ts';
import { ForbiddenError } from '../../domain/errors.ts';
import { toPage, type Page } from '../../domain/pagination.ts';
import { keysetPage } from '../keyset.ts';
import type { ServiceContext } from '../service-context.ts';
import { requireActor } from '../require-actor.ts';
import { toOrganizationResponse, toProjectResponse, type PublicOrganization, type PublicProject } from './public.ts';

/** Every project of the actor's organization, oldest first. */
export async function listProjects({ ctx, input }: { ctx: ServiceContext; input: { limit: number; cursor?: string | undefined } }): Promise<Page<PublicProject>> {
  const actor = requireActor(ctx);
  const page = keysetPage({ createdAt: projects.createdAt, id: projects.id }, input.cursor, 'asc');
  const rows = await ctx.db
    .select()
    .from(projects)
    .where(
      and(
        eq(projects.organizationId, actor.organizationId),
        page.after,
      ),
    )
    .orderBy(...page.orderBy)
    .limit(input.limit + 1);
  return toPage(rows, input.limit, toProjectResponse);
}

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

export async function listOrganizations({ ctx }: { ctx: ServiceContext }): Promise<Page<PublicOrganization>> {
  const actor = requireActor(ctx);
  const rows = await ctx.db.select().from(organizations).where(eq(organizations.id, actor.organizationId));
  return { data: rows.map(toOrganizationResponse), pageInfo: { nextCursor: null } };
}

export async function getOrganization({ ctx, input }: { ctx: ServiceContext; input: { organizationId: string } }): Promise<PublicOrganization> {
  const actor = requireActor(ctx);
  if (input.organizationId !== actor.organizationId) throw new ForbiddenError('The organization is outside the principal tenant');
  const [row] = await ctx.db.select().from(organizations).where(eq(organizations.id, actor.organizationId));
  return toOrganizationResponse(row!);
}
