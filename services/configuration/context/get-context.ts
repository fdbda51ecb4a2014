import type * as v from 'valibot';
import type { ContextShape } from '../../../domain/public-shapes/access.ts';
import { asc, eq } from 'drizzle-orm';
import { organizations, projects } from '../../../db/schema/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import type { DeploymentPreset } from '../model-presets/index.ts';
import { listActiveModelPresetKeys } from '../model-presets/index.ts';
import { toOrganizationResponse, toProjectResponse } from '../../access/projects/index.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { isDefaultProject } from '../../access/auth/index.ts';

export type ContextResponse = v.InferOutput<typeof ContextShape>;

/** The context object of spec 1 (`GET /context`): who is acting, where, and what is around. */
export async function getContext({
  ctx,
  deps,
}: {
  ctx: ServiceContext;
  deps: { settings: { authMode: string; currency: string }; deploymentPresets: readonly DeploymentPreset[] };
}): Promise<ContextResponse> {
  const actor = requireActor(ctx);
  const [organization] = await ctx.db.select().from(organizations).where(eq(organizations.id, actor.organizationId));
  const projectRows = await ctx.db
    .select()
    .from(projects)
    .where(eq(projects.organizationId, actor.organizationId))
    .orderBy(asc(projects.createdAt), asc(projects.id));
  const project = projectRows.find((row) => row.id === actor.projectId)!;
  const organizationResponse = toOrganizationResponse(organization!);
  return {
    principal: {
      id: actor.principalId,
      organizationId: actor.organizationId,
      projectId: actor.projectId,
      kind: actor.kind,
      subject: actor.subject,
      scopes: actor.scopes,
      ...(actor.displayName ? { displayName: actor.displayName } : {}),
      organizationRole: actor.organizationRole,
      projectRole: actor.projectRole,
    },
    organization: organizationResponse,
    project: toProjectResponse(project),
    organizations: [organizationResponse],
    projects: projectRows.map(toProjectResponse),
    activeModelPresets: await listActiveModelPresetKeys(ctx, deps),
    authProvider: deps.settings.authMode,
    currency: deps.settings.currency,
    ...(deps.settings.authMode === 'edge_proxy' ? { isIapDefaultProject: await isDefaultProject(ctx.db, actor.projectId) } : {}),
  };
}
