import { Hono } from 'hono';
import { CreateMcpCredentialPolicyInput } from '../../domain/mcp/inputs.ts';
import { ListQuery } from '../../domain/pagination.ts';
import { createMcpCredentialPolicy } from '../../services/configuration/mcp-credential-policies/index.ts';
import { listMcpCredentialPolicyVersions } from '../../services/configuration/mcp-credential-policies/index.ts';
import type { AppDeps } from '../deps.ts';
import type { AppEnv } from '../env.ts';
import { route } from '../openapi/route-doc.ts';
import { validBody, validQuery } from '../validation.ts';
import { McpCredentialPolicyVersionPageShape, PublicMcpCredentialPolicyVersionShape } from '../../domain/public-shapes/mcp.ts';

/**
 * Organization-shared credential policies (scopes not shown in spec 2; decided in
 * docs/decisions/mcp-scopes.md): they decide where a credential may be sent, so reading them is
 * `credential:read_metadata` and publishing `credential:write`. A new version answers 201; a
 * body equal to the newest version answers it with 200.
 */
export function mcpCredentialPolicyRoutes(deps: AppDeps) {
  const policy = { allowPrivateNetwork: deps.settings.outboundAllowPrivateNetwork };
  return new Hono<AppEnv>()
    .get(
      '/projects/:projectId/mcp-credential-policies',
      route({
        summary: 'List credential policy versions',
        scopes: ['credential:read_metadata'],
        query: ListQuery,
        responses: { 200: { description: 'A page of policy versions', schema: McpCredentialPolicyVersionPageShape } },
      }),
      async (c) => {
        return c.json(await listMcpCredentialPolicyVersions({ ctx: c.var.ctx, input: validQuery(c, ListQuery) }));
      },
    )
    .post(
      '/projects/:projectId/mcp-credential-policies',
      route({
        summary: 'Publish a credential policy version',
        scopes: ['credential:write'],
        body: CreateMcpCredentialPolicyInput,
        responses: {
          200: { description: 'The newest version; the body equals it', schema: PublicMcpCredentialPolicyVersionShape },
          201: { description: 'The new version', schema: PublicMcpCredentialPolicyVersionShape },
        },
      }),
      async (c) => {
        const input = await validBody(c, CreateMcpCredentialPolicyInput);
        const { version, created } = await createMcpCredentialPolicy({ ctx: c.var.ctx, policy, input });
        return c.json(version, created ? 201 : 200);
      },
    );
}
