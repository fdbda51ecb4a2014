import { Hono } from 'hono';
import { NotFoundError } from '../../../domain/errors.ts';
import type { AppDeps, Facade } from '../../../api/deps.ts';
import type { AppEnv } from '../../../api/env.ts';
import { bodyCeiling } from '../../../api/middleware/body-ceiling.ts';
import { rateLimit } from '../../../api/middleware/rate-limit.ts';
import { compatAgentRoutes } from './agents.ts';
import { compatAuthenticate } from './auth.ts';
import { compatEnvironmentRoutes } from './environments.ts';
import { handleCompatError } from './errors.ts';
import { compatEventRoutes } from './events.ts';
import { compatThreadRoutes } from './threads.ts';
import { compatFileRoutes } from './files.ts';
import { compatMemoryStoreRoutes } from './memory-stores.ts';
import { compatSessionRoutes } from './sessions.ts';
import { compatSkillRoutes } from './skills.ts';

/** Every request's ceiling; the multipart routes read theirs under lower limits, as bytes arrive. */
const MAX_REQUEST_BYTES = 40 * 1024 * 1024;

/**
 * The Claude Managed Agents–compatible API, mounted at `/compat/anthropic/v1` so the official
 * Anthropic SDK's `baseURL` is `http://host:port/compat/anthropic` (docs/decisions/anthropic-compat-mount.md). It calls our services in-process: the same rules, scopes and rate
 * limits as the native routes, in the SDK's shapes, errors and headers. Any `anthropic-version`
 * and `anthropic-beta` is accepted.
 */
export function anthropicCompatApp(deps: AppDeps) {
  const app = new Hono<AppEnv>();
  app.onError(handleCompatError);
  app.use(async (c, next) => {
    c.header('request-id', c.get('requestId'));
    await next();
    c.res.headers.set('request-id', c.get('requestId'));
  });
  app.use(bodyCeiling(MAX_REQUEST_BYTES));
  app.use(compatAuthenticate(deps));
  app.use(rateLimit(deps.settings.limits, deps.clock));
  app.route('/', compatAgentRoutes(deps));
  app.route('/', compatEnvironmentRoutes());
  app.route('/', compatSessionRoutes(deps));
  app.route('/', compatEventRoutes(deps));
  app.route('/', compatThreadRoutes(deps));
  app.route('/', compatFileRoutes(deps));
  app.route('/', compatSkillRoutes());
  app.route('/', compatMemoryStoreRoutes());
  app.all('*', (c) => {
    throw new NotFoundError(`No route for ${c.req.method} ${c.req.path} on this server`);
  });
  return app;
}

/** The module's mount: `/compat/anthropic/v1`, so the SDK's `baseURL` is `http://host:port/compat/anthropic`. */
export const anthropicFacade: Facade = { path: '/compat/anthropic/v1', routes: anthropicCompatApp };
