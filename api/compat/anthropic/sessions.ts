import { Hono } from 'hono';
import { CreateSessionParams, UpdateSessionParams } from '../../../domain/compat/anthropic/sessions.ts';
import { ValidationError } from '../../../domain/errors.ts';
import { archiveCompatSession, createCompatSession, deleteCompatSession, getCompatSession, listCompatSessions, updateCompatSession } from '../../../services/compat-anthropic/sessions.ts';
import type { AppDeps } from '../../deps.ts';
import type { AppEnv } from '../../env.ts';
import { needs } from './auth.ts';
import { deduped } from './retries.ts';
import { flag, jsonBody, paging } from './requests.ts';

/** Query parameters of the sessions list this server cannot honour yet (a 400 naming each, never ignored). */
const UNSUPPORTED_LIST_QUERY = ['agent_version', 'created_at[gt]', 'created_at[gte]', 'created_at[lt]', 'created_at[lte]'];

/** `client.beta.sessions`: create (idle or with initial events), retrieve, update (title, metadata), list, archive, delete. Scopes as the native routes'. */
export function compatSessionRoutes(deps: AppDeps) {
  return new Hono<AppEnv>()
    .post('/sessions', needs('session:write', 'run:create'), async (c) => {
      const input = await jsonBody(c, CreateSessionParams);
      return deduped(c, (ctx) => createCompatSession({ ctx, deps, input }));
    })
    .get('/sessions', needs('session:read'), async (c) => {
      for (const name of UNSUPPORTED_LIST_QUERY) {
        if (c.req.query(name) !== undefined) throw new ValidationError(`${name}: this filter is not supported by this server yet`, { path: `query.${name}` });
      }
      const order = c.req.query('order');
      if (order !== undefined && order !== '' && order !== 'desc') throw new ValidationError('order: only desc is supported by this server', { path: 'query.order' });
      const includeArchived = flag(c, 'include_archived');
      // Deployments and memory stores do not exist here: nothing matches them.
      if (c.req.query('deployment_id') || c.req.query('memory_store_id')) return c.json({ data: [], next_page: null, prev_page: null });
      const agentId = c.req.query('agent_id');
      return c.json(await listCompatSessions({ ctx: c.var.ctx, input: { ...paging(c), agentId: agentId === '' ? undefined : agentId, statuses: c.req.queries('statuses[]') ?? [], includeArchived } }));
    })
    .get('/sessions/:sessionId', needs('session:read'), async (c) => c.json(await getCompatSession({ ctx: c.var.ctx, input: { sessionId: c.req.param('sessionId') } })))
    .post('/sessions/:sessionId', needs('session:write', 'session:read'), async (c) => {
      const params = await jsonBody(c, UpdateSessionParams);
      return deduped(c, (ctx) => updateCompatSession({ ctx, input: { sessionId: c.req.param('sessionId'), params } }));
    })
    .post('/sessions/:sessionId/archive', needs('session:write', 'run:cancel', 'session:read'), async (c) => deduped(c, (ctx) => archiveCompatSession({ ctx, deps, input: { sessionId: c.req.param('sessionId') } })))
    .delete('/sessions/:sessionId', needs('session:write', 'run:cancel'), async (c) => deduped(c, (ctx) => deleteCompatSession({ ctx, deps, input: { sessionId: c.req.param('sessionId') } })));
}
