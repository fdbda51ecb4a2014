import { Hono } from 'hono';
import { getContext } from '../../services/configuration/context/index.ts';
import type { AppDeps } from '../deps.ts';
import type { AppEnv } from '../env.ts';
import { route } from '../openapi/route-doc.ts';
import { ContextShape } from '../../domain/public-shapes/access.ts';

/** `GET /context`: any authenticated principal may read its own context (no scope needed). */
export function contextRoutes(deps: AppDeps) {
  return new Hono<AppEnv>().get(
    '/context',
    route({
      summary: 'The active organization, project and principal',
      scopes: [],
      responses: { 200: { description: 'The context object', schema: ContextShape } },
    }),
    async (c) => c.json(await getContext({ ctx: c.var.ctx, deps })),
  );
}
