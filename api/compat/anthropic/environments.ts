import { Hono } from 'hono';
import { CreateEnvironmentParams, UpdateEnvironmentParams } from '../../../domain/compat/anthropic/environments.ts';
import { NotFoundError } from '../../../domain/errors.ts';
import {
  archiveCompatEnvironment,
  createCompatEnvironment,
  deleteCompatEnvironment,
  getCompatEnvironment,
  listCompatEnvironments,
  updateCompatEnvironment,
} from '../../../services/compat-anthropic/environments.ts';
import type { AppEnv } from '../../env.ts';
import { needs } from './auth.ts';
import { flag, jsonBody, paging } from './requests.ts';

/**
 * `client.beta.environments`: metadata (a session's sandbox comes from its agent version);
 * `env_default` always exists. The self-hosted work queue (`/environments/{id}/work/*`) is 404.
 */
export function compatEnvironmentRoutes() {
  return new Hono<AppEnv>()
    .post('/environments', needs('agent:write'), async (c) => c.json(await createCompatEnvironment({ ctx: c.var.ctx, input: await jsonBody(c, CreateEnvironmentParams) })))
    .get('/environments', needs('agent:read'), async (c) => c.json(await listCompatEnvironments({ ctx: c.var.ctx, input: { ...paging(c), includeArchived: flag(c, 'include_archived') } })))
    .get('/environments/:id', needs('agent:read'), async (c) => c.json(await getCompatEnvironment({ ctx: c.var.ctx, input: { id: c.req.param('id') } })))
    .post('/environments/:id', needs('agent:write'), async (c) => c.json(await updateCompatEnvironment({ ctx: c.var.ctx, input: { id: c.req.param('id'), params: await jsonBody(c, UpdateEnvironmentParams) } })))
    .post('/environments/:id/archive', needs('agent:write'), async (c) => c.json(await archiveCompatEnvironment({ ctx: c.var.ctx, input: { id: c.req.param('id') } })))
    .delete('/environments/:id', needs('agent:write'), async (c) => c.json(await deleteCompatEnvironment({ ctx: c.var.ctx, input: { id: c.req.param('id') } })))
    .all('/environments/:id/work/*', () => {
      throw new NotFoundError('Self-hosted environment work queues are not supported by this server');
    });
}
