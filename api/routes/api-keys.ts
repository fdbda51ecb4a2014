import { Hono } from 'hono';
import * as v from 'valibot';
import { CreateApiKeyInput } from '../../domain/api-keys.ts';
import { ListQuery } from '../../domain/pagination.ts';
import { createApiKey } from '../../services/access/api-keys/index.ts';
import { listApiKeys } from '../../services/access/api-keys/index.ts';
import { revokeApiKey } from '../../services/access/api-keys/index.ts';
import type { AppDeps } from '../deps.ts';
import type { AppEnv } from '../env.ts';
import { route } from '../openapi/route-doc.ts';
import { Uuid, validBody, validParams, validQuery } from '../validation.ts';
import { ApiKeyPageShape, ApiKeyRevokedShape, CreatedApiKeyShape } from '../../domain/public-shapes/access.ts';

const ApiKeyParams = v.object({ projectId: Uuid, apiKeyId: Uuid });

export function apiKeyRoutes(deps: AppDeps) {
  return new Hono<AppEnv>()
    .get(
      '/projects/:projectId/api-keys',
      route({
        summary: "List the organization's API keys (no secrets)",
        scopes: ['project:admin'],
        query: ListQuery,
        responses: { 200: { description: 'A page of API keys', schema: ApiKeyPageShape } },
      }),
      async (c) => {
        return c.json(await listApiKeys({ ctx: c.var.ctx, input: validQuery(c, ListQuery) }));
      },
    )
    .post(
      '/projects/:projectId/api-keys',
      route({
        summary: 'Create an API key; its secret is shown once',
        scopes: ['project:admin'],
        body: CreateApiKeyInput,
        responses: { 201: { description: 'The key with `shown` and, the first time, `secret`', schema: CreatedApiKeyShape } },
      }),
      async (c) => {
        const input = await validBody(c, CreateApiKeyInput);
        const created = await createApiKey({ ctx: c.var.ctx, keyring: deps.keyring, input });
        // A replay returns the same record without the secret (spec 3 "API keys" rule 4).
        const { secret: _secret, ...withoutSecret } = created;
        c.set('idempotencyStoredBody', { ...withoutSecret, shown: false });
        return c.json(created, 201);
      },
    )
    .delete(
      '/projects/:projectId/api-keys/:apiKeyId',
      route({
        summary: 'Revoke an API key',
        scopes: ['project:admin'],
        params: ApiKeyParams,
        responses: { 200: { description: '`{id, revoked: true}`', schema: ApiKeyRevokedShape } },
      }),
      async (c) => {
        const { apiKeyId } = validParams(c, ApiKeyParams);
        return c.json(await revokeApiKey({ ctx: c.var.ctx, input: { apiKeyId } }));
      },
    );
}
