import { Hono } from 'hono';
import { CreateSessionParams, UpdateSessionParams } from '../domain/sessions.ts';
import { ValidationError } from '../../../domain/errors.ts';
import {
  archiveCompatSession,
  createCompatSession,
  deleteCompatSession,
  getCompatSession,
  listCompatSessions,
  updateCompatSession,
} from '../services/sessions.ts';
import type { AppDeps } from '../../../api/deps.ts';
import type { AppEnv } from '../../../api/env.ts';
import { needs } from './auth.ts';
import { deduped } from './retries.ts';
import { createdAtBounds, flag, jsonBody, orderOf, paging } from './requests.ts';

/** `client.beta.sessions`: create (idle or with initial events), retrieve, update (title, metadata), list, archive, delete. Scopes as the native routes'. */
export function compatSessionRoutes(deps: AppDeps) {
  return new Hono<AppEnv>()
    .post('/sessions', needs('session:write', 'run:create'), async (c) => {
      const input = await jsonBody(c, CreateSessionParams);
      return deduped(c, (ctx) => createCompatSession({ ctx, deps, input }));
    })
    .get('/sessions', needs('session:read'), async (c) => {
      const includeArchived = flag(c, 'include_archived');
      // Deployments and memory stores do not exist here: nothing matches them.
      if (c.req.query('deployment_id') || c.req.query('memory_store_id')) return c.json({ data: [], next_page: null, prev_page: null });
      const agentId = c.req.query('agent_id') || undefined;
      const rawVersion = c.req.query('agent_version');
      const agentVersion = rawVersion === undefined || rawVersion === '' ? undefined : Number(rawVersion);
      if (agentVersion !== undefined && (!Number.isInteger(agentVersion) || agentVersion < 1))
        throw new ValidationError('agent_version must be a positive integer', { path: 'query.agent_version' });
      if (agentVersion !== undefined && agentId === undefined) throw new ValidationError('agent_version needs agent_id', { path: 'query.agent_version' });
      return c.json(
        await listCompatSessions({
          ctx: c.var.ctx,
          input: {
            ...paging(c),
            agentId,
            agentVersion,
            statuses: c.req.queries('statuses[]') ?? [],
            includeArchived,
            created: createdAtBounds(c),
            order: orderOf(c, 'desc'),
          },
        }),
      );
    })
    .get('/sessions/:sessionId', needs('session:read'), async (c) =>
      c.json(await getCompatSession({ ctx: c.var.ctx, input: { sessionId: c.req.param('sessionId') } })),
    )
    .post('/sessions/:sessionId', needs('session:write', 'session:read'), async (c) => {
      const params = await jsonBody(c, UpdateSessionParams);
      return deduped(c, (ctx) => updateCompatSession({ ctx, input: { sessionId: c.req.param('sessionId'), params } }));
    })
    .post('/sessions/:sessionId/archive', needs('session:write', 'run:cancel', 'session:read'), async (c) =>
      deduped(c, (ctx) => archiveCompatSession({ ctx, deps, input: { sessionId: c.req.param('sessionId') } })),
    )
    .delete('/sessions/:sessionId', needs('session:write', 'run:cancel'), async (c) =>
      deduped(c, (ctx) => deleteCompatSession({ ctx, deps, input: { sessionId: c.req.param('sessionId') } })),
    );
}
