import { Hono } from 'hono';
import * as v from 'valibot';
import { CreateModelProviderInput, RotateModelProviderCredentialInput } from '../../domain/model-catalog/provider-input.ts';
import { ListQuery } from '../../domain/pagination.ts';
import { createModelProvider } from '../../services/model-providers/create.ts';
import { listModelProviders } from '../../services/model-providers/list.ts';
import { removeModelProvider } from '../../services/model-providers/remove.ts';
import { rotateModelProviderCredential } from '../../services/model-providers/rotate-credential.ts';
import type { AppDeps } from '../deps.ts';
import type { AppEnv } from '../env.ts';
import { requireScopes } from '../middleware/scopes.ts';
import { Uuid, validBody, validParams, validQuery } from '../validation.ts';

const ProviderParams = v.object({ projectId: Uuid, providerId: Uuid });

/** Organization-shared model provider connections (spec 2): reads `agent:read`, writes `project:admin`. */
export function modelProviderRoutes(deps: AppDeps) {
  return new Hono<AppEnv>()
    .get('/projects/:projectId/model-providers', requireScopes('agent:read'), async (c) => {
      return c.json(await listModelProviders({ ctx: c.var.ctx, input: validQuery(c, ListQuery) }));
    })
    .post('/projects/:projectId/model-providers', requireScopes('project:admin'), async (c) => {
      const input = await validBody(c, CreateModelProviderInput);
      return c.json(await createModelProvider({ ctx: c.var.ctx, keyring: deps.keyring, input }), 201);
    })
    .put('/projects/:projectId/model-providers/:providerId/credential', requireScopes('project:admin'), async (c) => {
      const { providerId } = validParams(c, ProviderParams);
      const { apiKey } = await validBody(c, RotateModelProviderCredentialInput);
      return c.json(await rotateModelProviderCredential({ ctx: c.var.ctx, keyring: deps.keyring, input: { providerId, apiKey } }));
    })
    .delete('/projects/:projectId/model-providers/:providerId', requireScopes('project:admin'), async (c) => {
      const { providerId } = validParams(c, ProviderParams);
      return c.json(await removeModelProvider({ ctx: c.var.ctx, input: { providerId } }));
    });
}
