import { Hono } from 'hono';
import * as v from 'valibot';
import { CreateAgentInput, PublishVersionInput } from '../../domain/agents.ts';
import { ListQuery } from '../../domain/pagination.ts';
import { createAgent } from '../../services/configuration/agents/index.ts';
import { deleteAgent } from '../../services/configuration/agents/index.ts';
import { publishAgentVersion } from '../../services/configuration/agents/index.ts';
import { getAgent } from '../../services/configuration/agents/index.ts';
import { listAgents } from '../../services/configuration/agents/index.ts';
import { listAgentVersions } from '../../services/configuration/agents/index.ts';
import type { AppDeps } from '../deps.ts';
import type { AppEnv } from '../env.ts';
import { route } from '../openapi/route-doc.ts';
import { Uuid, validBody, validParams, validQuery } from '../validation.ts';
import {
  AgentDeletedShape,
  AgentPageShape,
  AgentVersionListShape,
  AgentWithVersionsShape,
  PublicAgentVersionShape,
} from '../../domain/public-shapes/agents.ts';

const AgentParams = v.object({ projectId: Uuid, agentId: Uuid });
// Configs carry tool schemas (64 KiB each) and harness instructions (100,000 characters each).
const MAX_CONFIG_BODY_BYTES = 8 * 1024 * 1024;

export function agentRoutes(deps: AppDeps) {
  return new Hono<AppEnv>()
    .get(
      '/projects/:projectId/agents',
      route({
        summary: 'List agent definitions',
        scopes: ['agent:read'],
        query: ListQuery,
        responses: { 200: { description: 'A page of agents', schema: AgentPageShape } },
      }),
      async (c) => c.json(await listAgents({ ctx: c.var.ctx, input: validQuery(c, ListQuery) })),
    )
    .post(
      '/projects/:projectId/agents',
      route({
        summary: 'Create an agent and its version 1',
        scopes: ['agent:write'],
        body: CreateAgentInput,
        responses: { 201: { description: 'The agent with its versions', schema: AgentWithVersionsShape } },
      }),
      async (c) => {
        const input = await validBody(c, CreateAgentInput, { maxBytes: MAX_CONFIG_BODY_BYTES });
        return c.json(await createAgent({ ctx: c.var.ctx, deps, input }), 201);
      },
    )
    .get(
      '/projects/:projectId/agents/:agentId',
      route({
        summary: 'An agent definition and all its versions',
        scopes: ['agent:read'],
        params: AgentParams,
        responses: { 200: { description: 'The agent with its versions', schema: AgentWithVersionsShape } },
      }),
      async (c) => {
        const { agentId } = validParams(c, AgentParams);
        return c.json(await getAgent({ ctx: c.var.ctx, input: { agentId } }));
      },
    )
    .delete(
      '/projects/:projectId/agents/:agentId',
      route({
        summary: 'Archive an agent',
        scopes: ['agent:write'],
        params: AgentParams,
        responses: { 200: { description: '`{id, deleted: true}`', schema: AgentDeletedShape } },
      }),
      async (c) => {
        const { agentId } = validParams(c, AgentParams);
        return c.json(await deleteAgent({ ctx: c.var.ctx, input: { agentId } }));
      },
    )
    .get(
      '/projects/:projectId/agents/:agentId/versions',
      route({
        summary: "List an agent's versions",
        scopes: ['agent:read'],
        params: AgentParams,
        responses: { 200: { description: 'The versions', schema: AgentVersionListShape } },
      }),
      async (c) => {
        const { agentId } = validParams(c, AgentParams);
        return c.json(await listAgentVersions({ ctx: c.var.ctx, input: { agentId } }));
      },
    )
    .post(
      '/projects/:projectId/agents/:agentId/versions',
      route({
        summary: 'Publish the next version (the complete config)',
        scopes: ['agent:write'],
        params: AgentParams,
        body: PublishVersionInput,
        responses: { 201: { description: 'The new version', schema: PublicAgentVersionShape } },
      }),
      async (c) => {
        const { agentId } = validParams(c, AgentParams);
        const { config } = await validBody(c, PublishVersionInput, { maxBytes: MAX_CONFIG_BODY_BYTES });
        return c.json(await publishAgentVersion({ ctx: c.var.ctx, deps, input: { agentId, config } }), 201);
      },
    );
}
