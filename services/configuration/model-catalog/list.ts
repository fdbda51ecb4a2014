import * as v from 'valibot';
import { filterCatalog } from '../../../domain/model-catalog/filter.ts';
import { CatalogRequest } from '../../../domain/model-catalog/query.ts';
import type { CatalogEntry, ModelProviderType } from '../../../domain/model-catalog/types.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import type { CredentialKeyring } from '../../kernel/credentials/index.ts';
import { providerApiKey } from '../model-providers/index.ts';
import { loadLiveProvider } from '../model-providers/index.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { fetchProviderCatalog, type ModelBaseUrls } from './fetch-catalog.ts';

export type ModelCatalogResponse = { providerId: string; providerType: ModelProviderType; data: CatalogEntry[]; total: number };

/**
 * A live provider's model catalog, fetched afresh from the vendor with the connection's key
 * (spec 2 rule 1), then filtered by `search` and cut to `limit`. A removed or foreign provider
 * is a 404; a rejected key a 400; an unreachable vendor a 500 with `details.reason`.
 */
export async function listModelCatalog({
  ctx,
  keyring,
  baseUrls,
  input,
}: {
  ctx: ServiceContext;
  keyring: CredentialKeyring;
  baseUrls: ModelBaseUrls;
  input: CatalogRequest;
}): Promise<ModelCatalogResponse> {
  const actor = requireActor(ctx);
  const query = v.parse(CatalogRequest, input);
  const provider = await loadLiveProvider(ctx, { organizationId: actor.organizationId, providerId: query.providerId });
  const entries = await fetchProviderCatalog({ providerType: provider.providerType, apiKey: providerApiKey(keyring, provider), baseUrls });
  const { data, total } = filterCatalog(entries, query);
  return { providerId: provider.id, providerType: provider.providerType, data, total };
}
