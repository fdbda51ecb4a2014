import { A2AError } from '@a2a-js/sdk/errors';
import { Hono, type Context } from 'hono';
import { NotFoundError } from '../../../domain/errors.ts';
import { isUuid } from '../../../domain/uuid.ts';
import { assertHasScopes } from '../../../domain/scopes.ts';
import type { AppDeps, Facade } from '../../../api/deps.ts';
import type { AppEnv } from '../../../api/env.ts';
import { domainErrorOf, handleError, handleNotFound } from '../../../api/errors.ts';
import { bodyCeiling } from '../../../api/middleware/body-ceiling.ts';
import { rateLimit } from '../../../api/middleware/rate-limit.ts';
import { doorHandler } from '../services/handler.ts';
import { toA2AError } from '../services/errors.ts';
import { doorAuthenticate } from '../../shared/authenticate.ts';
import { cardJson, doorAgent, doorAgents, endpointOf } from './cards.ts';
import { serveJsonRpc } from './jsonrpc.ts';
import { serveRest } from './rest.ts';

/** A message and its parts fit well under this; the core's turn limits apply inside it. */
const MAX_REQUEST_BYTES = 8 * 1024 * 1024;

/**
 * The A2A 1.0 door (docs/agent-protocols.md, docs/decisions/a2a-door.md), mounted at `/a2a`: for
 * each agent of a project, its Agent Card at `/{projectId}/agents/{agentId}/.well-known/agent-card.json`
 * and both bindings at `/{projectId}/agents/{agentId}` (JSON-RPC: a POST to it; HTTP+JSON: the
 * resources below it); `GET /{projectId}/agents` lists the cards. Callers are API keys of the
 * project, with the native routes' scopes and rate limits; the runs are ordinary runs.
 */
export function a2aDoorApp(deps: AppDeps) {
  const app = new Hono<AppEnv>();
  app.onError(handleError);
  if (!deps.settings.doors.a2a) {
    app.all('*', handleNotFound);
    return app;
  }
  app.use(bodyCeiling(MAX_REQUEST_BYTES));
  app.use('/:projectId/*', doorAuthenticate(deps, 'a2a'));
  app.use('/:projectId/*', rateLimit(deps.settings.limits, deps.clock));

  app.get('/:projectId/agents', async (c) => {
    assertHasScopes(c.var.actor.scopes, ['agent:read']);
    const projectId = c.var.actor.projectId;
    const agents = await doorAgents(c.var.ctx);
    return c.json({ agentCards: agents.map((agent) => cardJson(agent, endpointOf(c, projectId, agent.id))) });
  });
  app.get('/:projectId/agents/:agentId/.well-known/agent-card.json', async (c) => {
    assertHasScopes(c.var.actor.scopes, ['agent:read']);
    const agent = await doorAgent(c.var.ctx, agentIdOf(c.req.param('agentId')));
    return c.json(cardJson(agent, endpointOf(c, c.var.actor.projectId, agent.id)));
  });
  app.post('/:projectId/agents/:agentId', async (c) => {
    const handler = await handlerOf(c, agentIdOf(c.req.param('agentId')));
    return serveJsonRpc(c, handler, () => deps.eventStreamPlaces(c.var.actor));
  });
  app.on(['GET', 'POST'], '/:projectId/agents/:agentId/*', async (c) => {
    const agentId = agentIdOf(c.req.param('agentId'));
    // What follows the endpoint, as the route matched it (task ids are decoded where they are read).
    const rest = c.req.path.split('/').slice(5).join('/');
    const handler = await handlerOf(c, agentId);
    return serveRest(c, rest, handler, () => deps.eventStreamPlaces(c.var.actor));
  });
  app.all('*', (c) => {
    throw new NotFoundError(`No route for ${c.req.method} ${c.req.path} on this server`);
  });
  return app;

  async function handlerOf(c: Context<AppEnv>, agentId: string) {
    const agent = await doorAgent(c.var.ctx, agentId);
    return doorHandler({
      deps,
      ctx: c.var.ctx,
      agent,
      endpoint: endpointOf(c, c.var.actor.projectId, agent.id),
      signal: c.req.raw.signal,
      takeFollowPlace: () => deps.eventStreamPlaces(c.var.actor),
      translate: (error) =>
        toA2AError(error instanceof Error && !(error instanceof A2AError) ? domainErrorOf(error, c) : error, {
          requestId: c.var.requestId,
          logger: c.var.logger,
        }),
    });
  }
}

function agentIdOf(value: string | undefined): string {
  if (!value || !isUuid(value)) throw new NotFoundError('No agent with that id in this project');
  return value;
}

/** The module's mount: `/a2a` (docs/decisions/a2a-door.md). */
export const a2aDoor: Facade = { path: '/a2a', routes: a2aDoorApp };
