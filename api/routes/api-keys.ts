import { Hono } from 'hono';
import * as v from 'valibot';
import { CreateApiKeyInput } from '../../domain/api-keys.ts';
import { ListQuery } from '../../domain/pagination.ts';
import { createApiKey } from '../../services/api-keys/create.ts';
import { listApiKeys } from '../../services/api-keys/list.ts';
import { revokeApiKey } from '../../services/api-keys/revoke.ts';
import type { AppDeps } from '../deps.ts';
import type { AppEnv } from '../env.ts';
import { requireScopes } from '../middleware/scopes.ts';
import { Uuid, validBody, validParams, validQuery } from '../validation.ts';

export function apiKeyRoutes(deps: AppDeps) {
  return new Hono<AppEnv>()
    .get('/projects/:projectId/api-keys', requireScopes('project:admin'), async (c) => {
      return c.json(await listApiKeys({ ctx: c.var.ctx, input: validQuery(c, ListQuery) }));
    })
    .post('/projects/:projectId/api-keys', requireScopes('project:admin'), async (c) => {
      const input = await validBody(c, CreateApiKeyInput);
      const created = await createApiKey({ ctx: c.var.ctx, keyring: deps.keyring, input });
      // A replay returns the same record without the secret (spec 3 "API keys" rule 4).
      const { secret: _secret, ...withoutSecret } = created;
      c.set('idempotencyStoredBody', { ...withoutSecret, shown: false });
      return c.json(created, 201);
    })
    .delete('/projects/:projectId/api-keys/:apiKeyId', requireScopes('project:admin'), async (c) => {
      const { apiKeyId } = validParams(c, v.object({ projectId: Uuid, apiKeyId: Uuid }));
      return c.json(await revokeApiKey({ ctx: c.var.ctx, input: { apiKeyId } }));
    });
}
