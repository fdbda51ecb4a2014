import { Hono } from 'hono';
import * as v from 'valibot';
import { CreateMcpServerInput, DiscoverMcpServerInput } from '../../domain/mcp/inputs.ts';
import { ListQuery } from '../../domain/pagination.ts';
import { createMcpServer } from '../../services/configuration/mcp-servers/index.ts';
import { discoverMcpServer } from '../../services/configuration/mcp-servers/index.ts';
import { listMcpServers } from '../../services/configuration/mcp-servers/index.ts';
import type { AppDeps } from '../deps.ts';
import type { AppEnv } from '../env.ts';
import { route } from '../openapi/route-doc.ts';
import { Uuid, validBody, validParams, validQuery } from '../validation.ts';
import { McpDiscoveryShape, McpServerPageShape, PublicMcpServerShape } from '../../domain/public-shapes/mcp.ts';

const ServerParams = v.object({ projectId: Uuid, serverId: Uuid });
const DiscoverBody = v.optional(DiscoverMcpServerInput, {});

/**
 * Organization-shared MCP servers (spec 2 "MCP servers, credentials, policies, toolsets"):
 * list `mcp:read`, create `mcp:write`, discover `mcp:discover`. A discovery that publishes a new
 * version answers 201, an unchanged one 200.
 */
export function mcpServerRoutes(deps: AppDeps) {
  const policy = { allowPrivateNetwork: deps.settings.outboundAllowPrivateNetwork };
  return new Hono<AppEnv>()
    .get(
      '/projects/:projectId/mcp-servers',
      route({
        summary: 'List MCP servers with discovered tool snapshots',
        scopes: ['mcp:read'],
        query: ListQuery,
        responses: { 200: { description: 'A page of servers', schema: McpServerPageShape } },
      }),
      async (c) => {
        return c.json(await listMcpServers({ ctx: c.var.ctx, input: validQuery(c, ListQuery) }));
      },
    )
    .post(
      '/projects/:projectId/mcp-servers',
      route({
        summary: 'Create an MCP server (immutable version 1)',
        scopes: ['mcp:write'],
        body: CreateMcpServerInput,
        responses: { 201: { description: 'The server', schema: PublicMcpServerShape } },
      }),
      async (c) => {
        const input = await validBody(c, CreateMcpServerInput);
        return c.json(await createMcpServer({ ctx: c.var.ctx, policy, input }), 201);
      },
    )
    .post(
      '/projects/:projectId/mcp-servers/:serverId/discover',
      route({
        summary: "Discover the server's tools (a changed snapshot publishes a new version)",
        scopes: ['mcp:discover'],
        params: ServerParams,
        body: DiscoverBody,
        responses: {
          200: { description: 'The discovery; nothing changed', schema: McpDiscoveryShape },
          201: { description: 'The discovery and the new version', schema: McpDiscoveryShape },
        },
        transaction: 'deferred',
      }),
      async (c) => {
        const { serverId } = validParams(c, ServerParams);
        const body = await validBody(c, DiscoverBody);
        const result = await discoverMcpServer({ ctx: c.var.ctx, deps: { keyring: deps.keyring, policy }, input: { serverId, ...body } });
        return c.json(result, result.changed ? 201 : 200);
      },
    );
}
