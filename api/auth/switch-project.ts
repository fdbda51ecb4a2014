import type { Hono } from 'hono';
import * as v from 'valibot';
import { UnauthenticatedError } from '../../domain/errors.ts';
import { switchActiveProject } from '../../services/access/auth/index.ts';
import { getContext } from '../../services/configuration/context/index.ts';
import type { AppDeps } from '../deps.ts';
import type { AppEnv } from '../env.ts';
import { Uuid, validBody } from '../validation.ts';
import { setActiveProjectCookie } from './cookies.ts';
import { route } from '../openapi/route-doc.ts';
import { ContextShape } from '../../domain/public-shapes/access.ts';

/**
 * `POST /auth/switch-project` `{projectId}`, in every browser mode: the subject needs a principal
 * and membership there (else 403); the choice is the `svc_active_project` cookie (and the cookie
 * session's active project). Every later request re-checks the membership.
 */
const SwitchProjectBody = v.strictObject({ projectId: Uuid });

export function addSwitchProjectRoute(routes: Hono<AppEnv>, deps: AppDeps): void {
  routes.post(
    '/switch-project',
    route({
      transaction: 'none',
      summary: 'Make another project of the organization the active one of this browser session',
      scopes: [],
      body: SwitchProjectBody,
      responses: { 200: { description: 'The context object in the new project', schema: ContextShape } },
    }),
    async (c) => {
      if (c.var.authMethod === 'api_key') throw new UnauthenticatedError('Switching projects needs a browser session');
      const { projectId } = await validBody(c, SwitchProjectBody);
      const actor = await switchActiveProject({ ctx: c.var.ctx, input: { sessionId: c.var.browserSessionId, actor: c.var.actor, projectId } });
      setActiveProjectCookie(c, deps, projectId);
      return c.json(await getContext({ ctx: { ...c.var.ctx, actor }, deps }));
    },
  );
}
