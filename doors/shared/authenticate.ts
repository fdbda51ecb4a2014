import { createMiddleware } from 'hono/factory';
import { NotFoundError, UnauthenticatedError } from '../../domain/errors.ts';
import { isUuid } from '../../domain/uuid.ts';
import { authenticateApiKey } from '../../services/access/auth/index.ts';
import { agentProtocolsOfProject } from '../../services/access/projects/index.ts';
import type { AppDeps } from '../../api/deps.ts';
import type { AppEnv } from '../../api/env.ts';
import { requestServiceContext } from '../../api/request-context.ts';

const LABEL = { a2a: 'A2A', mcp: 'MCP' } as const;

/**
 * A door's callers (doors/a2a, doors/mcp): API keys as `Authorization: Bearer svc_…`, acting in the
 * path's `{projectId}` under the core's rule for keys (an unknown or revoked key is a 401, a
 * project outside the key's organization a 403). A path segment that is no id names no project
 * (404, and never reaches PostgreSQL as a UUID). A project that switched the door off
 * (`agentProtocols`, docs/decisions/agent-protocol-switches.md) is a 404: it serves nothing there.
 * Browser sessions are not accepted. Errors are thrown as domain errors; each door renders them.
 */
export const doorAuthenticate = (deps: AppDeps, door: 'a2a' | 'mcp') =>
  createMiddleware<AppEnv>(async (c, next) => {
    const base = requestServiceContext(deps, c);
    c.set('ctx', base);
    const secret = bearerOf(c.req.header('authorization'));
    const projectId = c.req.param('projectId') ?? '';
    if (!isUuid(projectId)) throw new NotFoundError(`No project with that id: the ${LABEL[door]} endpoints are below /${door}/{projectId}`);
    const actor = await authenticateApiKey({ ctx: base, deps: { keyring: deps.keyring, apiKeyCache: deps.apiKeyCache }, input: { secret, projectId } });
    const ctx = { ...base, actor };
    if (!(await agentProtocolsOfProject(ctx, actor.projectId))[door]) throw new NotFoundError(`This project does not serve its agents over ${LABEL[door]}`);
    c.set('actor', actor);
    c.set('authMethod', 'api_key');
    c.set('browserSessionId', null);
    c.set('routeProjectId', actor.projectId);
    c.set('ctx', ctx);
    await next();
  });

function bearerOf(header: string | undefined): string {
  if (header === undefined) throw new UnauthenticatedError('Send an API key of this server as "Authorization: Bearer svc_…"');
  const [scheme, secret, extra] = header.trim().split(/\s+/);
  if (scheme?.toLowerCase() !== 'bearer' || !secret || extra) throw new UnauthenticatedError('The Authorization header must be "Bearer <API key>"');
  return secret;
}
