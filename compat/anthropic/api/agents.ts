import { Hono } from 'hono';
import { CreateAgentParams, UpdateAgentParams } from '../domain/agents.ts';
import { NotFoundError, ValidationError } from '../../../domain/errors.ts';
import { archiveCompatAgent, createCompatAgent, getCompatAgent, listCompatAgents, listCompatAgentVersions, updateCompatAgent } from '../services/agents.ts';
import type { AppDeps } from '../../../api/deps.ts';
import type { AppEnv } from '../../../api/env.ts';
import { needs } from './auth.ts';
import { deduped } from './retries.ts';
import { flag, isOurId, jsonBody, paging } from './requests.ts';

const agentId = (id: string) => {
  if (!isOurId(id)) throw new NotFoundError('No agent with that id in this project');
  return id;
};

/** `client.beta.agents`: create, retrieve (`?version=`), update (the next version), list, archive, versions; archived agents stay readable. */
export function compatAgentRoutes(deps: AppDeps) {
  return new Hono<AppEnv>()
    .post('/agents', needs('agent:write'), async (c) => {
      const input = await jsonBody(c, CreateAgentParams);
      return deduped(c, (ctx) => createCompatAgent({ ctx, deps, input }));
    })
    .get('/agents', needs('agent:read'), async (c) =>
      c.json(await listCompatAgents({ ctx: c.var.ctx, input: { ...paging(c), includeArchived: flag(c, 'include_archived') } })),
    )
    .get('/agents/:agentId', needs('agent:read'), async (c) => {
      const raw = c.req.query('version');
      const version = raw === undefined || raw === '' ? undefined : Number(raw);
      if (version !== undefined && (!Number.isInteger(version) || version < 1))
        throw new ValidationError('version must be a positive integer', { path: 'query.version' });
      return c.json(
        await getCompatAgent({ ctx: c.var.ctx, input: { agentId: agentId(c.req.param('agentId')), ...(version !== undefined ? { version } : {}) } }),
      );
    })
    .post('/agents/:agentId', needs('agent:write'), async (c) => {
      const params = await jsonBody(c, UpdateAgentParams);
      const id = agentId(c.req.param('agentId'));
      return deduped(c, (ctx) => updateCompatAgent({ ctx, deps, input: { agentId: id, params } }));
    })
    .post('/agents/:agentId/archive', needs('agent:write'), async (c) =>
      deduped(c, (ctx) => archiveCompatAgent({ ctx, input: { agentId: agentId(c.req.param('agentId')) } })),
    )
    .get('/agents/:agentId/versions', needs('agent:read'), async (c) => {
      const { limit, page } = paging(c);
      const all = await listCompatAgentVersions({ ctx: c.var.ctx, input: { agentId: agentId(c.req.param('agentId')) } });
      const offset = page === undefined ? 0 : Number(Buffer.from(page, 'base64url').toString('utf8'));
      if (!Number.isInteger(offset) || offset < 0) throw new ValidationError('page is not a cursor this server gave', { path: 'query.page' });
      const next = offset + limit;
      return c.json({ data: all.slice(offset, next), next_page: next < all.length ? Buffer.from(String(next)).toString('base64url') : null });
    });
}
