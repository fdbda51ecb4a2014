import { createMiddleware } from 'hono/factory';
import { ForbiddenError } from '../../domain/errors.ts';
import { missingScopes, type Scope } from '../../domain/scopes.ts';
import type { AppEnv } from '../env.ts';

/** Per-route scope check; the 403 names every missing scope (spec 3 "Scopes"). */
export const requireScopes = (...required: Scope[]) =>
  createMiddleware<AppEnv>(async (c, next) => {
    const missing = missingScopes(c.var.actor.scopes, required);
    if (missing.length > 0) {
      throw new ForbiddenError(`The principal lacks the required scope: ${missing.join(', ')}`, {
        requiredScopes: required,
        missingScopes: missing,
      });
    }
    await next();
  });
