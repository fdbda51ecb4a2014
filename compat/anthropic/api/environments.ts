import { Hono } from 'hono';
import { CreateEnvironmentParams, UpdateEnvironmentParams } from '../domain/environments.ts';
import { NotFoundError } from '../../../domain/errors.ts';
import {
  archiveCompatEnvironment,
  createCompatEnvironment,
  deleteCompatEnvironment,
  getCompatEnvironment,
  listCompatEnvironments,
  updateCompatEnvironment,
} from '../services/environments.ts';
import type { AppEnv } from '../../../api/env.ts';
import { needs } from './auth.ts';
import { deduped } from './retries.ts';
import { flag, jsonBody, paging } from './requests.ts';

/**
 * `client.beta.environments`: metadata (a session's sandbox comes from its agent version);
 * `env_default` always exists. The self-hosted work queue (`/environments/{id}/work/*`) is 404.
 */
export function compatEnvironmentRoutes() {
  return new Hono<AppEnv>()
    .post('/environments', needs('agent:write'), async (c) => {
      const input = await jsonBody(c, CreateEnvironmentParams);
      return deduped(c, (ctx) => createCompatEnvironment({ ctx, input }));
    })
    .get('/environments', needs('agent:read'), async (c) =>
      c.json(await listCompatEnvironments({ ctx: c.var.ctx, input: { ...paging(c), includeArchived: flag(c, 'include_archived') } })),
    )
    .get('/environments/:id', needs('agent:read'), async (c) => c.json(await getCompatEnvironment({ ctx: c.var.ctx, input: { id: c.req.param('id') } })))
    .post('/environments/:id', needs('agent:write'), async (c) => {
      const params = await jsonBody(c, UpdateEnvironmentParams);
      return deduped(c, (ctx) => updateCompatEnvironment({ ctx, input: { id: c.req.param('id'), params } }));
    })
    .post('/environments/:id/archive', needs('agent:write'), async (c) =>
      deduped(c, (ctx) => archiveCompatEnvironment({ ctx, input: { id: c.req.param('id') } })),
    )
    .delete('/environments/:id', needs('agent:write'), async (c) => deduped(c, (ctx) => deleteCompatEnvironment({ ctx, input: { id: c.req.param('id') } })))
    .all('/environments/:id/work/*', () => {
      throw new NotFoundError('Self-hosted environment work queues are not supported by this server');
    });
}
