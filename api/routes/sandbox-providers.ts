import { Hono } from 'hono';
import * as v from 'valibot';
import { ListQuery } from '../../domain/pagination.ts';
import {
  CreateSandboxProviderInput,
  RotateSandboxProviderCredentialInput,
  UpdateSandboxProviderConfigurationInput,
} from '../../domain/sandbox/provider-input.ts';
import { createSandboxProvider } from '../../services/configuration/sandbox-providers/index.ts';
import { listSandboxProviders, listSandboxSnapshots } from '../../services/configuration/sandbox-providers/index.ts';
import { rotateSandboxProviderCredential, updateSandboxProviderConfiguration } from '../../services/configuration/sandbox-providers/index.ts';
import type { AppDeps } from '../deps.ts';
import type { AppEnv } from '../env.ts';
import { route } from '../openapi/route-doc.ts';
import { Uuid, validBody, validParams, validQuery } from '../validation.ts';
import { PublicSandboxProviderShape, SandboxProviderPageShape, SnapshotListShape } from '../../domain/public-shapes/connections.ts';

const ProviderParams = v.object({ projectId: Uuid, providerId: Uuid });

/** Organization-shared sandbox provider connections (spec 2): reads `agent:read`, writes `project:admin`. */
export function sandboxProviderRoutes(deps: AppDeps) {
  // Egress allowlists are held to the address policy webhooks and MCP endpoints are.
  const policy = { allowPrivateNetwork: deps.settings.outboundAllowPrivateNetwork };
  return new Hono<AppEnv>()
    .get(
      '/projects/:projectId/sandbox-providers',
      route({
        summary: 'List sandbox provider connections (safe metadata)',
        scopes: ['agent:read'],
        query: ListQuery,
        responses: { 200: { description: 'A page of connections', schema: SandboxProviderPageShape } },
      }),
      async (c) => {
        return c.json(await listSandboxProviders({ ctx: c.var.ctx, input: validQuery(c, ListQuery) }));
      },
    )
    .post(
      '/projects/:projectId/sandbox-providers',
      route({
        summary: 'Create a sandbox provider connection',
        scopes: ['project:admin'],
        body: CreateSandboxProviderInput,
        responses: { 201: { description: 'The connection', schema: PublicSandboxProviderShape } },
      }),
      async (c) => {
        const input = await validBody(c, CreateSandboxProviderInput);
        return c.json(await createSandboxProvider({ ctx: c.var.ctx, keyring: deps.keyring, policy, input }), 201);
      },
    )
    .put(
      '/projects/:projectId/sandbox-providers/:providerId/credential',
      route({
        summary: "Rotate a connection's API key",
        scopes: ['project:admin'],
        params: ProviderParams,
        body: RotateSandboxProviderCredentialInput,
        responses: { 200: { description: 'The connection', schema: PublicSandboxProviderShape } },
      }),
      async (c) => {
        const { providerId } = validParams(c, ProviderParams);
        const { apiKey } = await validBody(c, RotateSandboxProviderCredentialInput);
        return c.json(await rotateSandboxProviderCredential({ ctx: c.var.ctx, keyring: deps.keyring, input: { providerId, apiKey } }));
      },
    )
    .put(
      '/projects/:projectId/sandbox-providers/:providerId/configuration',
      route({
        summary: "Change a connection's target and restricted egress",
        scopes: ['project:admin'],
        params: ProviderParams,
        body: UpdateSandboxProviderConfigurationInput,
        responses: { 200: { description: 'The connection', schema: PublicSandboxProviderShape } },
      }),
      async (c) => {
        const { providerId } = validParams(c, ProviderParams);
        const body = await validBody(c, UpdateSandboxProviderConfigurationInput);
        return c.json(await updateSandboxProviderConfiguration({ ctx: c.var.ctx, policy, input: { providerId, ...body } }));
      },
    )
    .get(
      '/projects/:projectId/sandbox-providers/:providerId/snapshots',
      route({
        summary: 'Every snapshot visible to the connection',
        scopes: ['agent:read'],
        params: ProviderParams,
        responses: { 200: { description: 'The snapshots', schema: SnapshotListShape } },
      }),
      async (c) => {
        const { providerId } = validParams(c, ProviderParams);
        return c.json(await listSandboxSnapshots({ ctx: c.var.ctx, snapshots: deps.sandboxSnapshots, input: { providerId } }));
      },
    );
}
