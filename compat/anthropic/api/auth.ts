import { createMiddleware } from 'hono/factory';
import { requestServiceContext } from '../../../api/request-context.ts';
import { isOurId } from '../domain/ids.ts';
import { ForbiddenError, UnauthenticatedError } from '../../../domain/errors.ts';

import { assertHasScopes, type Scope } from '../../../domain/scopes.ts';
import { authenticateApiKey } from '../../../services/access/auth/index.ts';
import type { AppDeps } from '../../../api/deps.ts';
import type { AppEnv } from '../../../api/env.ts';

/**
 * The Anthropic SDK sends our API key as `Authorization: Bearer svc_…` (`x-api-key` is accepted
 * too). The project is `anthropic-workspace-id` when given, else the key's default project (the
 * core rule for keys). Browser sessions are not accepted here.
 */
export const compatAuthenticate = (deps: AppDeps) =>
  createMiddleware<AppEnv>(async (c, next) => {
    const base = requestServiceContext(deps, c);
    c.set('ctx', base);
    const secret = bearerOf(c.req.header('authorization')) ?? c.req.header('x-api-key')?.trim();
    if (!secret) throw new UnauthenticatedError('Send an API key of this server as "Authorization: Bearer svc_…" or "x-api-key"');
    const workspace = c.req.header('anthropic-workspace-id')?.trim() || null;
    let actor = await authenticateApiKey({ ctx: base, deps: { keyring: deps.keyring, apiKeyCache: deps.apiKeyCache }, input: { secret, projectId: null } });
    if (workspace && workspace !== actor.projectId) {
      // The key is valid; a workspace that is not a project of its organization is a 403.
      if (!isOurId(workspace)) throw new ForbiddenError('anthropic-workspace-id must be the id of a project of the API key organization');
      try {
        actor = await authenticateApiKey({
          ctx: base,
          deps: { keyring: deps.keyring, apiKeyCache: deps.apiKeyCache },
          input: { secret, projectId: workspace },
        });
      } catch (error) {
        if (error instanceof UnauthenticatedError) throw new ForbiddenError('anthropic-workspace-id must be the id of a project of the API key organization');
        throw error;
      }
    }
    c.set('actor', actor);
    c.set('authMethod', 'api_key');
    c.set('browserSessionId', null);
    c.set('routeProjectId', actor.projectId);
    c.set('ctx', { ...base, actor });
    await next();
  });

function bearerOf(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const [scheme, secret, extra] = header.trim().split(/\s+/);
  if (scheme?.toLowerCase() !== 'bearer' || !secret || extra) throw new UnauthenticatedError('The Authorization header must be "Bearer <API key>"');
  return secret;
}

/** A route's scopes, exactly as the native route of the same verb needs them. */
export const needs = (...scopes: Scope[]) =>
  createMiddleware<AppEnv>(async (c, next) => {
    assertHasScopes(c.var.actor.scopes, scopes);
    await next();
  });
