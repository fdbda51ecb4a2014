import { Hono } from 'hono';
import { CreateMcpToolsetInput } from '../../domain/mcp/inputs.ts';
import { ListQuery } from '../../domain/pagination.ts';
import { createMcpToolset } from '../../services/configuration/mcp-toolsets/index.ts';
import { listMcpToolsets } from '../../services/configuration/mcp-toolsets/index.ts';
import type { AppEnv } from '../env.ts';
import { route } from '../openapi/route-doc.ts';
import { validBody, validQuery } from '../validation.ts';
import { McpToolsetPageShape, PublicMcpToolsetShape } from '../../domain/public-shapes/mcp.ts';

/**
 * Project toolsets (scopes not shown in spec 2; decided in docs/decisions/mcp-scopes.md): list
 * `mcp:read`, publish `mcp:write`. A new version answers 201; a body equal to the newest version
 * answers the toolset with 200.
 */
export function mcpToolsetRoutes() {
  return new Hono<AppEnv>()
    .get(
      '/projects/:projectId/mcp-toolsets',
      route({
        summary: 'List toolsets',
        scopes: ['mcp:read'],
        query: ListQuery,
        responses: { 200: { description: 'A page of toolsets', schema: McpToolsetPageShape } },
      }),
      async (c) => {
        return c.json(await listMcpToolsets({ ctx: c.var.ctx, input: validQuery(c, ListQuery) }));
      },
    )
    .post(
      '/projects/:projectId/mcp-toolsets',
      route({
        summary: 'Publish a toolset version',
        scopes: ['mcp:write'],
        body: CreateMcpToolsetInput,
        responses: {
          200: { description: 'The toolset; the body equals its newest version', schema: PublicMcpToolsetShape },
          201: { description: 'The toolset with its new version', schema: PublicMcpToolsetShape },
        },
      }),
      async (c) => {
        const input = await validBody(c, CreateMcpToolsetInput);
        const { toolset, created } = await createMcpToolset({ ctx: c.var.ctx, input });
        return c.json(toolset, created ? 201 : 200);
      },
    );
}
