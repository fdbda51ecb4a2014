import { Hono } from 'hono';
import * as v from 'valibot';
import { ListQuery } from '../../domain/pagination.ts';
import { CreateSandboxProviderInput, RotateSandboxProviderCredentialInput, UpdateSandboxProviderConfigurationInput } from '../../domain/sandbox/provider-input.ts';
import { createSandboxProvider } from '../../services/sandbox-providers/create.ts';
import { listSandboxProviders, listSandboxSnapshots } from '../../services/sandbox-providers/list.ts';
import { rotateSandboxProviderCredential, updateSandboxProviderConfiguration } from '../../services/sandbox-providers/update.ts';
import type { AppDeps } from '../deps.ts';
import type { AppEnv } from '../env.ts';
import { requireScopes } from '../middleware/scopes.ts';
import { Uuid, validBody, validParams, validQuery } from '../validation.ts';

const ProviderParams = v.object({ projectId: Uuid, providerId: Uuid });

/** Organization-shared sandbox provider connections (spec 2): reads `agent:read`, writes `project:admin`. */
export function sandboxProviderRoutes(deps: AppDeps) {
  return new Hono<AppEnv>()
    .get('/projects/:projectId/sandbox-providers', requireScopes('agent:read'), async (c) => {
      return c.json(await listSandboxProviders({ ctx: c.var.ctx, input: validQuery(c, ListQuery) }));
    })
    .post('/projects/:projectId/sandbox-providers', requireScopes('project:admin'), async (c) => {
      const input = await validBody(c, CreateSandboxProviderInput);
      return c.json(await createSandboxProvider({ ctx: c.var.ctx, keyring: deps.keyring, input }), 201);
    })
    .put('/projects/:projectId/sandbox-providers/:providerId/credential', requireScopes('project:admin'), async (c) => {
      const { providerId } = validParams(c, ProviderParams);
      const { apiKey } = await validBody(c, RotateSandboxProviderCredentialInput);
      return c.json(await rotateSandboxProviderCredential({ ctx: c.var.ctx, keyring: deps.keyring, input: { providerId, apiKey } }));
    })
    .put('/projects/:projectId/sandbox-providers/:providerId/configuration', requireScopes('project:admin'), async (c) => {
      const { providerId } = validParams(c, ProviderParams);
      const body = await validBody(c, UpdateSandboxProviderConfigurationInput);
      return c.json(await updateSandboxProviderConfiguration({ ctx: c.var.ctx, input: { providerId, ...body } }));
    })
    .get('/projects/:projectId/sandbox-providers/:providerId/snapshots', requireScopes('agent:read'), async (c) => {
      const { providerId } = validParams(c, ProviderParams);
      return c.json(await listSandboxSnapshots({ ctx: c.var.ctx, snapshots: deps.sandboxSnapshots, input: { providerId } }));
    });
}
