import { Hono } from 'hono';
import * as v from 'valibot';
import { CreateAgentInput, PublishVersionInput } from '../../domain/agents.ts';
import { ListQuery } from '../../domain/pagination.ts';
import { createAgent } from '../../services/agents/create.ts';
import { deleteAgent } from '../../services/agents/delete.ts';
import { publishAgentVersion } from '../../services/agents/publish-version.ts';
import { getAgent } from '../../services/agents/get.ts';
import { listAgents } from '../../services/agents/list.ts';
import { listAgentVersions } from '../../services/agents/list-versions.ts';
import type { AppDeps } from '../deps.ts';
import type { AppEnv } from '../env.ts';
import { requireScopes } from '../middleware/scopes.ts';
import { Uuid, validBody, validParams, validQuery } from '../validation.ts';

const AgentParams = v.object({ projectId: Uuid, agentId: Uuid });
// Configs carry tool schemas (64 KiB each) and harness instructions (100,000 characters each).
const MAX_CONFIG_BODY_BYTES = 8 * 1024 * 1024;

export function agentRoutes(deps: AppDeps) {
  return new Hono<AppEnv>()
    .get('/projects/:projectId/agents', requireScopes('agent:read'), async (c) => c.json(await listAgents({ ctx: c.var.ctx, input: validQuery(c, ListQuery) })))
    .post('/projects/:projectId/agents', requireScopes('agent:write'), async (c) => {
      const input = await validBody(c, CreateAgentInput, { maxBytes: MAX_CONFIG_BODY_BYTES });
      return c.json(await createAgent({ ctx: c.var.ctx, deps, input }), 201);
    })
    .get('/projects/:projectId/agents/:agentId', requireScopes('agent:read'), async (c) => {
      const { agentId } = validParams(c, AgentParams);
      return c.json(await getAgent({ ctx: c.var.ctx, input: { agentId } }));
    })
    .delete('/projects/:projectId/agents/:agentId', requireScopes('agent:write'), async (c) => {
      const { agentId } = validParams(c, AgentParams);
      return c.json(await deleteAgent({ ctx: c.var.ctx, input: { agentId } }));
    })
    .get('/projects/:projectId/agents/:agentId/versions', requireScopes('agent:read'), async (c) => {
      const { agentId } = validParams(c, AgentParams);
      return c.json(await listAgentVersions({ ctx: c.var.ctx, input: { agentId } }));
    })
    .post('/projects/:projectId/agents/:agentId/versions', requireScopes('agent:write'), async (c) => {
      const { agentId } = validParams(c, AgentParams);
      const { config } = await validBody(c, PublishVersionInput, { maxBytes: MAX_CONFIG_BODY_BYTES });
      return c.json(await publishAgentVersion({ ctx: c.var.ctx, deps, input: { agentId, config } }), 201);
    });
}
