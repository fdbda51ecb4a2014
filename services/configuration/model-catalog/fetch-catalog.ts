import type { CatalogEntry, ModelProviderType } from '../../../domain/model-catalog/types.ts';
import { fetchGatewayCatalog } from '../../../adapters/models/gateway/catalog.ts';
import type { VendorRequest } from '../../../adapters/models/catalog-http.ts';
import { fetchVendorACatalog } from '../../../adapters/models/vendor-a/catalog.ts';
import { fetchVendorBCatalog } from '../../../adapters/models/vendor-b/catalog.ts';
import { fetchVendorCCatalog } from '../../../adapters/models/vendor-c/catalog.ts';

/** Base URL per provider type (`settings.modelBaseUrls`). */
export type ModelBaseUrls = Record<ModelProviderType, string>;

const ADAPTERS: Record<ModelProviderType, (request: VendorRequest) => Promise<CatalogEntry[]>> = {
  gateway: fetchGatewayCatalog,
  vendor_a: fetchVendorACatalog,
  vendor_b: fetchVendorBCatalog,
  vendor_c: fetchVendorCCatalog,
};

/**
 * Fetches a provider's full model list afresh from the vendor (spec 2 rule 1: no cache) and
 * maps it to catalog entries. Duplicate ids keep their first entry.
 */
export async function fetchProviderCatalog(input: {
  providerType: ModelProviderType;
  apiKey: string;
  baseUrls: ModelBaseUrls;
  timeoutMs?: number;
}): Promise<CatalogEntry[]> {
  const entries = await ADAPTERS[input.providerType]({
    providerType: input.providerType,
    baseUrl: input.baseUrls[input.providerType],
    apiKey: input.apiKey,
    ...(input.timeoutMs !== undefined ? { timeoutMs: input.timeoutMs } : {}),
  });
  const seen = new Set<string>();
  return entries.filter((entry) => !seen.has(entry.model) && seen.add(entry.model));
}
