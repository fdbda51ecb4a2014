import { Hono } from 'hono';
import * as v from 'valibot';
import { CreateModelProviderInput, RotateModelProviderCredentialInput } from '../../domain/model-catalog/provider-input.ts';
import { ListQuery } from '../../domain/pagination.ts';
import { createModelProvider } from '../../services/configuration/model-providers/index.ts';
import { listModelProviders } from '../../services/configuration/model-providers/index.ts';
import { removeModelProvider } from '../../services/configuration/model-providers/index.ts';
import { rotateModelProviderCredential } from '../../services/configuration/model-providers/index.ts';
import type { AppDeps } from '../deps.ts';
import type { AppEnv } from '../env.ts';
import { route } from '../openapi/route-doc.ts';
import { Uuid, validBody, validParams, validQuery } from '../validation.ts';
import { ModelProviderPageShape, ModelProviderRemovedShape, PublicModelProviderShape } from '../../domain/public-shapes/connections.ts';

const ProviderParams = v.object({ projectId: Uuid, providerId: Uuid });

/** Organization-shared model provider connections (spec 2): reads `agent:read`, writes `project:admin`. */
export function modelProviderRoutes(deps: AppDeps) {
  return new Hono<AppEnv>()
    .get(
      '/projects/:projectId/model-providers',
      route({
        summary: 'List model provider connections (safe metadata)',
        scopes: ['agent:read'],
        query: ListQuery,
        responses: { 200: { description: 'A page of connections', schema: ModelProviderPageShape } },
      }),
      async (c) => {
        return c.json(await listModelProviders({ ctx: c.var.ctx, input: validQuery(c, ListQuery) }));
      },
    )
    .post(
      '/projects/:projectId/model-providers',
      route({
        summary: 'Create a model provider connection',
        scopes: ['project:admin'],
        body: CreateModelProviderInput,
        responses: { 201: { description: 'The connection', schema: PublicModelProviderShape } },
      }),
      async (c) => {
        const input = await validBody(c, CreateModelProviderInput);
        return c.json(await createModelProvider({ ctx: c.var.ctx, keyring: deps.keyring, input }), 201);
      },
    )
    .put(
      '/projects/:projectId/model-providers/:providerId/credential',
      route({
        summary: "Rotate a connection's API key",
        scopes: ['project:admin'],
        params: ProviderParams,
        body: RotateModelProviderCredentialInput,
        responses: { 200: { description: 'The connection', schema: PublicModelProviderShape } },
      }),
      async (c) => {
        const { providerId } = validParams(c, ProviderParams);
        const { apiKey } = await validBody(c, RotateModelProviderCredentialInput);
        return c.json(await rotateModelProviderCredential({ ctx: c.var.ctx, keyring: deps.keyring, input: { providerId, apiKey } }));
      },
    )
    .delete(
      '/projects/:projectId/model-providers/:providerId',
      route({
        summary: 'Remove a connection',
        scopes: ['project:admin'],
        params: ProviderParams,
        responses: { 200: { description: '`{id, removed: true}`', schema: ModelProviderRemovedShape } },
      }),
      async (c) => {
        const { providerId } = validParams(c, ProviderParams);
        return c.json(await removeModelProvider({ ctx: c.var.ctx, input: { providerId } }));
      },
    );
}
