import { Hono } from 'hono';
import * as v from 'valibot';
import { ListQuery } from '../../domain/pagination.ts';
import { CreateProjectInput, UpdateProjectInput } from '../../domain/projects.ts';
import { createProject } from '../../services/access/projects/index.ts';
import { deleteProject } from '../../services/access/projects/index.ts';
import { getProject } from '../../services/access/projects/index.ts';
import { listProjects } from '../../services/access/projects/index.ts';
import { updateProject } from '../../services/access/projects/index.ts';
import type { AppDeps } from '../deps.ts';
import type { AppEnv } from '../env.ts';
import { route } from '../openapi/route-doc.ts';
import { Uuid, validBody, validParams, validQuery } from '../validation.ts';
import { ProjectDeletedShape, ProjectPageShape, ProjectWithOrganizationShape, PublicProjectShape } from '../../domain/public-shapes/access.ts';

const ProjectParams = v.object({ projectId: Uuid });

export function projectRoutes(deps: AppDeps) {
  return new Hono<AppEnv>()
    .get(
      '/projects',
      route({
        summary: 'List the projects of the organization',
        scopes: ['project:admin'],
        query: ListQuery,
        responses: { 200: { description: 'A page of projects', schema: ProjectPageShape } },
      }),
      async (c) => {
        const query = validQuery(c, ListQuery);
        return c.json(await listProjects({ ctx: c.var.ctx, input: query }));
      },
    )
    .post(
      '/projects',
      route({
        summary: 'Create a project',
        scopes: ['project:admin'],
        body: CreateProjectInput,
        responses: { 201: { description: 'The project', schema: PublicProjectShape } },
      }),
      async (c) => {
        const input = await validBody(c, CreateProjectInput);
        return c.json(await createProject({ ctx: c.var.ctx, input }), 201);
      },
    )
    .get(
      '/projects/:projectId',
      route({
        summary: 'Read project and organization metadata',
        scopes: ['project:admin'],
        params: ProjectParams,
        responses: {
          200: { description: 'The project with its organization and the retention windows that apply to it', schema: ProjectWithOrganizationShape },
        },
      }),
      async (c) => {
        const { projectId } = validParams(c, ProjectParams);
        return c.json(await getProject({ ctx: c.var.ctx, deps: { retention: deps.settings.retention }, input: { projectId } }));
      },
    )
    .patch(
      '/projects/:projectId',
      route({
        summary:
          "Change the project's retention windows (`retention.sessions`, `retention.events`: a duration such as `30d`, `12h` or `90m`, null " +
          'for the installation default; omitted: unchanged), its monthly budget (`budget: {maxMonthlyCost?, maxMonthlyTokens?}`, null ' +
          'for none) and whether its agents answer over the standard agent protocols (`agentProtocols: {a2a?, mcp?}`, booleans; omitted: ' +
          'unchanged; each applies only while the installation serves that protocol)',
        scopes: ['project:admin'],
        params: ProjectParams,
        body: UpdateProjectInput,
        responses: {
          200: { description: 'The project with its organization and the retention windows that apply to it', schema: ProjectWithOrganizationShape },
        },
      }),
      async (c) => {
        const { projectId } = validParams(c, ProjectParams);
        const changes = await validBody(c, UpdateProjectInput);
        return c.json(await updateProject({ ctx: c.var.ctx, deps: { retention: deps.settings.retention }, input: { projectId, changes } }));
      },
    )
    .delete(
      '/projects/:projectId',
      route({
        summary: 'Hard-delete a project and every row it owns',
        scopes: ['project:admin'],
        params: ProjectParams,
        responses: { 200: { description: '`{id, deleted: true}`', schema: ProjectDeletedShape } },
      }),
      async (c) => {
        const { projectId } = validParams(c, ProjectParams);
        return c.json(await deleteProject({ ctx: c.var.ctx, deps, input: { projectId } }));
      },
    );
}
