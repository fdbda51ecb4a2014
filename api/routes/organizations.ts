import { Hono } from 'hono';
import * as v from 'valibot';
import { getOrganization } from '../../services/organizations/get.ts';
import { listOrganizations } from '../../services/organizations/list.ts';
import type { AppEnv } from '../env.ts';
import { requireScopes } from '../middleware/scopes.ts';
import { Uuid, validParams } from '../validation.ts';

export function organizationRoutes() {
  return new Hono<AppEnv>()
    .get('/organizations', requireScopes('project:admin'), async (c) => c.json(await listOrganizations({ ctx: c.var.ctx })))
    .get('/organizations/:organizationId', requireScopes('project:admin'), async (c) => {
      const { organizationId } = validParams(c, v.object({ organizationId: Uuid }));
      return c.json(await getOrganization({ ctx: c.var.ctx, input: { organizationId } }));
    });
}
