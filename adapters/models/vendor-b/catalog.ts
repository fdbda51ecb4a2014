import { toVendorBEntry, type VendorBModel } from '../../../domain/model-catalog/vendor-b.ts';
import type { CatalogEntry } from '../../../domain/model-catalog/types.ts';
import { arrayField, getVendorJson, MAX_CATALOG_PAGES, vendorUrl, withStringField, type VendorRequest } from '../catalog-http.ts';

const ANTHROPIC_VERSION = '2023-06-01';

/**
 * Anthropic: `GET {base}/v1/models?limit=1000` with `x-api-key` and `anthropic-version`,
 * following `after_id=<last_id>` while `has_more` is true.
 */
export async function fetchVendorBCatalog(request: VendorRequest): Promise<CatalogEntry[]> {
  const headers = { 'x-api-key': request.apiKey, 'anthropic-version': ANTHROPIC_VERSION };
  const entries: CatalogEntry[] = [];
  let afterId: string | undefined;
  for (let page = 0; page < MAX_CATALOG_PAGES; page++) {
    const body = (await getVendorJson(request, vendorUrl(request.baseUrl, '/v1/models', { limit: '1000', after_id: afterId }), headers)) as {
      has_more?: boolean;
      last_id?: string | null;
    };
    entries.push(...withStringField<VendorBModel>(arrayField(request, body, 'data'), 'id').map(toVendorBEntry));
    if (body.has_more !== true || typeof body.last_id !== 'string' || body.last_id === afterId) break;
    afterId = body.last_id;
  }
  return entries;
}
