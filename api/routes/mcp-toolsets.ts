import { Hono } from 'hono';
import { CreateMcpToolsetInput } from '../../domain/mcp/inputs.ts';
import { ListQuery } from '../../domain/pagination.ts';
import { createMcpToolset } from '../../services/mcp-toolsets/create.ts';
import { listMcpToolsets } from '../../services/mcp-toolsets/list.ts';
import type { AppEnv } from '../env.ts';
import { requireScopes } from '../middleware/scopes.ts';
import { validBody, validQuery } from '../validation.ts';

/**
 * Project toolsets (scopes not shown in spec 2; decided in docs/decisions.md "MCP"): list
 * `mcp:read`, publish `mcp:write`. A new version answers 201; a body equal to the newest version
 * answers the toolset with 200.
 */
export function mcpToolsetRoutes() {
  return new Hono<AppEnv>()
    .get('/projects/:projectId/mcp-toolsets', requireScopes('mcp:read'), async (c) => {
      return c.json(await listMcpToolsets({ ctx: c.var.ctx, input: validQuery(c, ListQuery) }));
    })
    .post('/projects/:projectId/mcp-toolsets', requireScopes('mcp:write'), async (c) => {
      const input = await validBody(c, CreateMcpToolsetInput);
      const { toolset, created } = await createMcpToolset({ ctx: c.var.ctx, input });
      return c.json(toolset, created ? 201 : 200);
    });
}
