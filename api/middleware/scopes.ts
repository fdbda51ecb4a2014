import { createMiddleware } from 'hono/factory';
import { assertHasScopes, type Scope } from '../../domain/scopes.ts';
import type { AppEnv } from '../env.ts';

/** Per-route scope check; the 403 names every missing scope (spec 3 "Scopes"). */
export const requireScopes = (...required: Scope[]) =>
  createMiddleware<AppEnv>(async (c, next) => {
    assertHasScopes(c.var.actor.scopes, required);
    await next();
  });
