import { Hono } from 'hono';
import * as v from 'valibot';
import { ListQuery } from '../../domain/pagination.ts';
import { CreateProjectInput } from '../../domain/projects.ts';
import { createProject } from '../../services/projects/create.ts';
import { deleteProject } from '../../services/projects/delete.ts';
import { getProject } from '../../services/projects/get.ts';
import { listProjects } from '../../services/projects/list.ts';
import type { AppDeps } from '../deps.ts';
import type { AppEnv } from '../env.ts';
import { requireScopes } from '../middleware/scopes.ts';
import { Uuid, validBody, validParams, validQuery } from '../validation.ts';

const ProjectParams = v.object({ projectId: Uuid });

export function projectRoutes(deps: AppDeps) {
  return new Hono<AppEnv>()
    .get('/projects', requireScopes('project:admin'), async (c) => {
      const query = validQuery(c, ListQuery);
      return c.json(await listProjects({ ctx: c.var.ctx, input: query }));
    })
    .post('/projects', requireScopes('project:admin'), async (c) => {
      const input = await validBody(c, CreateProjectInput);
      return c.json(await createProject({ ctx: c.var.ctx, input }), 201);
    })
    .get('/projects/:projectId', requireScopes('project:admin'), async (c) => {
      const { projectId } = validParams(c, ProjectParams);
      return c.json(await getProject({ ctx: c.var.ctx, input: { projectId } }));
    })
    .delete('/projects/:projectId', requireScopes('project:admin'), async (c) => {
      const { projectId } = validParams(c, ProjectParams);
      return c.json(await deleteProject({ ctx: c.var.ctx, deps, input: { projectId } }));
    });
}
