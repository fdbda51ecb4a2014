import { Hono } from 'hono';
import * as v from 'valibot';
import { CreateMcpCredentialInput, RotateMcpCredentialInput } from '../../domain/mcp/inputs.ts';
import { ListQuery } from '../../domain/pagination.ts';
import { createMcpCredential } from '../../services/configuration/mcp-credentials/index.ts';
import { listMcpCredentials } from '../../services/configuration/mcp-credentials/index.ts';
import { revokeMcpCredential } from '../../services/configuration/mcp-credentials/index.ts';
import { rotateMcpCredential } from '../../services/configuration/mcp-credentials/index.ts';
import type { AppDeps } from '../deps.ts';
import type { AppEnv } from '../env.ts';
import { route } from '../openapi/route-doc.ts';
import { Uuid, validBody, validParams, validQuery } from '../validation.ts';
import { McpCredentialPageShape, PublicMcpCredentialShape } from '../../domain/public-shapes/mcp.ts';

const CredentialParams = v.object({ projectId: Uuid, credentialId: Uuid });

/**
 * Organization-shared MCP credentials: list `credential:read_metadata`, create
 * `credential:write`, rotate `credential:rotate`, revoke `credential:revoke`. Secrets are
 * write-only.
 */
export function mcpCredentialRoutes(deps: AppDeps) {
  return new Hono<AppEnv>()
    .get(
      '/projects/:projectId/mcp-credentials',
      route({
        summary: 'List MCP credentials (redacted metadata)',
        scopes: ['credential:read_metadata'],
        query: ListQuery,
        responses: { 200: { description: 'A page of credentials', schema: McpCredentialPageShape } },
      }),
      async (c) => {
        return c.json(await listMcpCredentials({ ctx: c.var.ctx, input: validQuery(c, ListQuery) }));
      },
    )
    .post(
      '/projects/:projectId/mcp-credentials',
      route({
        summary: 'Create an MCP credential (the secret is write-only)',
        scopes: ['credential:write'],
        body: CreateMcpCredentialInput,
        responses: { 201: { description: 'The credential', schema: PublicMcpCredentialShape } },
      }),
      async (c) => {
        const input = await validBody(c, CreateMcpCredentialInput);
        return c.json(await createMcpCredential({ ctx: c.var.ctx, keyring: deps.keyring, input }), 201);
      },
    )
    .post(
      '/projects/:projectId/mcp-credentials/:credentialId/rotate',
      route({
        summary: "Rotate a credential's secret",
        scopes: ['credential:rotate'],
        params: CredentialParams,
        body: RotateMcpCredentialInput,
        responses: { 200: { description: 'The credential', schema: PublicMcpCredentialShape } },
      }),
      async (c) => {
        const { credentialId } = validParams(c, CredentialParams);
        const { secret } = await validBody(c, RotateMcpCredentialInput);
        return c.json(await rotateMcpCredential({ ctx: c.var.ctx, keyring: deps.keyring, input: { credentialId, secret } }));
      },
    )
    .delete(
      '/projects/:projectId/mcp-credentials/:credentialId',
      route({
        summary: 'Revoke the active credential',
        scopes: ['credential:revoke'],
        params: CredentialParams,
        responses: { 200: { description: 'The credential', schema: PublicMcpCredentialShape } },
      }),
      async (c) => {
        const { credentialId } = validParams(c, CredentialParams);
        return c.json(await revokeMcpCredential({ ctx: c.var.ctx, input: { credentialId } }));
      },
    );
}
