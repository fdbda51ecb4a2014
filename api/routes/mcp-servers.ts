import { Hono } from 'hono';
import * as v from 'valibot';
import { CreateMcpServerInput, DiscoverMcpServerInput } from '../../domain/mcp/inputs.ts';
import { ListQuery } from '../../domain/pagination.ts';
import { createMcpServer } from '../../services/mcp-servers/create.ts';
import { discoverMcpServer } from '../../services/mcp-servers/discover.ts';
import { listMcpServers } from '../../services/mcp-servers/list.ts';
import type { AppDeps } from '../deps.ts';
import type { AppEnv } from '../env.ts';
import { requireScopes } from '../middleware/scopes.ts';
import { Uuid, validBody, validParams, validQuery } from '../validation.ts';

const ServerParams = v.object({ projectId: Uuid, serverId: Uuid });

/**
 * Organization-shared MCP servers (spec 2 "MCP servers, credentials, policies, toolsets"):
 * list `mcp:read`, create `mcp:write`, discover `mcp:discover`. A discovery that publishes a new
 * version answers 201, an unchanged one 200.
 */
export function mcpServerRoutes(deps: AppDeps) {
  const policy = { allowPrivateNetwork: deps.settings.webhooksAllowPrivateNetwork };
  return new Hono<AppEnv>()
    .get('/projects/:projectId/mcp-servers', requireScopes('mcp:read'), async (c) => {
      return c.json(await listMcpServers({ ctx: c.var.ctx, input: validQuery(c, ListQuery) }));
    })
    .post('/projects/:projectId/mcp-servers', requireScopes('mcp:write'), async (c) => {
      const input = await validBody(c, CreateMcpServerInput);
      return c.json(await createMcpServer({ ctx: c.var.ctx, policy, input }), 201);
    })
    .post('/projects/:projectId/mcp-servers/:serverId/discover', requireScopes('mcp:discover'), async (c) => {
      const { serverId } = validParams(c, ServerParams);
      const body = await validBody(c, v.optional(DiscoverMcpServerInput, {}));
      const result = await discoverMcpServer({ ctx: c.var.ctx, deps: { keyring: deps.keyring, policy }, input: { serverId, ...body } });
      return c.json(result, result.changed ? 201 : 200);
    });
}
