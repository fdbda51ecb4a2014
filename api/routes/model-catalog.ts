import { Hono } from 'hono';
import { CatalogQuery } from '../../domain/model-catalog/query.ts';
import { listModelCatalog } from '../../services/configuration/model-catalog/index.ts';
import type { AppDeps } from '../deps.ts';
import type { AppEnv } from '../env.ts';
import { route } from '../openapi/route-doc.ts';
import { validQuery } from '../validation.ts';
import { ModelCatalogShape } from '../../domain/public-shapes/connections.ts';

/** A provider's model catalog, fetched afresh from the vendor on every call (spec 2 rule 1). */
export function modelCatalogRoutes(deps: AppDeps) {
  return new Hono<AppEnv>().get(
    '/projects/:projectId/model-catalog',
    route({
      summary: "A provider's model catalog, fetched from the vendor",
      scopes: ['agent:read'],
      query: CatalogQuery,
      responses: { 200: { description: '`providerId`, `providerType` and the catalog entries', schema: ModelCatalogShape } },
    }),
    async (c) => {
      const input = validQuery(c, CatalogQuery);
      return c.json(await listModelCatalog({ ctx: c.var.ctx, keyring: deps.keyring, baseUrls: deps.settings.modelBaseUrls, input }));
    },
  );
}
