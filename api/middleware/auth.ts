import { createMiddleware } from 'hono/factory';
import { requestServiceContext } from '../request-context.ts';
import { ForbiddenError, UnauthenticatedError, ValidationError } from '../../domain/errors.ts';
import { authenticateApiKey } from '../../services/access/auth/index.ts';
import { projectOrganizationId } from '../../services/access/auth/index.ts';
import type { AuthProvider } from '../auth/provider.ts';
import type { AppDeps } from '../deps.ts';
import type { AppEnv } from '../env.ts';
import { isMutation } from '../mutations.ts';
import { OPENAPI_ROUTE } from '../openapi/document.ts';
import { isUuid } from '../../domain/uuid.ts';

const PROJECT_PATH = /^\/v1\/projects\/([^/]+)(\/.*)?$/;

export const ORIGIN_NOT_ALLOWED = 'Request origin is not allowed';

/**
 * Authenticates every `/v1` request except the provider's public routes, then sets the actor,
 * the base service context and the checked path project.
 *
 * `/projects/{id}/...` paths act in that project (an API key's mirror principal there; a
 * browser must already be in it: switch-project first). `/projects/{id}` itself is an organization-level
 * route: the target must be in the caller's organization, the actor stays in its own project.
 */
export const authenticate = (deps: AppDeps, provider: AuthProvider) =>
  createMiddleware<AppEnv>(async (c, next) => {
    const base = requestServiceContext(deps, c);
    c.set('ctx', base);
    const routeKey = `${c.req.method} ${c.req.path}`;
    if (routeKey === OPENAPI_ROUTE || provider.publicRoutes.has(routeKey)) return next();

    const match = PROJECT_PATH.exec(c.req.path);
    const pathProjectId = match?.[1] ? decodedProjectId(match[1]) : null;
    const actsInPathProject = Boolean(match?.[2]);

    const authorization = c.req.header('authorization');
    let actor;
    if (authorization !== undefined) {
      const [scheme, secret, extra] = authorization.trim().split(/\s+/);
      if (scheme?.toLowerCase() !== 'bearer' || !secret || extra) {
        throw new UnauthenticatedError('The Authorization header must be "Bearer <API key>"');
      }
      if (pathProjectId) assertUuid(pathProjectId);
      await provider.checkBesideApiKey?.(c);
      actor = await authenticateApiKey({
        ctx: base,
        deps: { keyring: deps.keyring, apiKeyCache: deps.apiKeyCache },
        input: { secret, projectId: actsInPathProject ? pathProjectId : null },
      });
      c.set('authMethod', 'api_key');
      c.set('browserSessionId', null);
    } else {
      const browser = await provider.authenticate(c, base);
      if (!browser) throw new UnauthenticatedError();
      if (isMutation(c.req.method) && c.req.header('origin') !== deps.settings.appOrigin) {
        throw new ForbiddenError(ORIGIN_NOT_ALLOWED);
      }
      if (pathProjectId) assertUuid(pathProjectId);
      if (actsInPathProject && pathProjectId !== browser.actor.projectId) {
        throw new ForbiddenError('The project in the path is not the active project of this session');
      }
      actor = browser.actor;
      c.set('authMethod', browser.method);
      c.set('browserSessionId', browser.sessionId);
    }

    if (pathProjectId && !actsInPathProject) {
      if ((await projectOrganizationId({ db: base.db, input: { projectId: pathProjectId } })) !== actor.organizationId) {
        throw new ForbiddenError('The project is outside the principal organization');
      }
    }
    c.set('actor', actor);
    c.set('routeProjectId', pathProjectId);
    c.set('ctx', { ...base, actor });
    await next();
  });

/** The path's project id, percent-decoded; a malformed encoding is a 400 like any non-UUID. */
function decodedProjectId(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new ValidationError('projectId in the path must be a UUID', { path: 'path.projectId' });
  }
}

function assertUuid(projectId: string) {
  if (!isUuid(projectId)) throw new ValidationError('projectId in the path must be a UUID', { path: 'path.projectId' });
}
