import { Hono } from 'hono';
import * as v from 'valibot';
import { getOrganization } from '../../services/access/organizations/index.ts';
import { listOrganizations } from '../../services/access/organizations/index.ts';
import type { AppEnv } from '../env.ts';
import { route } from '../openapi/route-doc.ts';
import { Uuid, validParams } from '../validation.ts';
import { OrganizationPageShape, PublicOrganizationShape } from '../../domain/public-shapes/access.ts';

const OrganizationParams = v.object({ organizationId: Uuid });

export function organizationRoutes() {
  return new Hono<AppEnv>()
    .get(
      '/organizations',
      route({
        summary: "List the principal's organization",
        scopes: ['project:admin'],
        responses: { 200: { description: 'A page of organizations', schema: OrganizationPageShape } },
      }),
      async (c) => c.json(await listOrganizations({ ctx: c.var.ctx })),
    )
    .get(
      '/organizations/:organizationId',
      route({
        summary: 'Organization identity and creation time',
        scopes: ['project:admin'],
        params: OrganizationParams,
        responses: { 200: { description: 'The organization', schema: PublicOrganizationShape } },
      }),
      async (c) => {
        const { organizationId } = validParams(c, OrganizationParams);
        return c.json(await getOrganization({ ctx: c.var.ctx, input: { organizationId } }));
      },
    );
}
