import { toVendorCEntry, type VendorCModel } from '../../../domain/model-catalog/vendor-c.ts';
import type { CatalogEntry } from '../../../domain/model-catalog/types.ts';
import { arrayField, getVendorJson, MAX_CATALOG_PAGES, vendorUrl, withStringField, type VendorRequest } from '../catalog-http.ts';

/**
 * Gemini: `GET {base}/models?pageSize=1000` with `x-goog-api-key` (never the `?key=` query
 * form, which would put the key in URLs), following `nextPageToken`.
 */
export async function fetchVendorCCatalog(request: VendorRequest): Promise<CatalogEntry[]> {
  const headers = { 'x-goog-api-key': request.apiKey };
  const entries: CatalogEntry[] = [];
  let pageToken: string | undefined;
  for (let page = 0; page < MAX_CATALOG_PAGES; page++) {
    const body = (await getVendorJson(request, vendorUrl(request.baseUrl, '/models', { pageSize: '1000', pageToken }), headers)) as { nextPageToken?: string };
    // An empty account answers `{}`, not `{models: []}`.
    const models = (body as { models?: unknown } | null)?.models === undefined ? [] : arrayField(request, body, 'models');
    entries.push(...withStringField<VendorCModel>(models, 'name').map(toVendorCEntry));
    if (typeof body.nextPageToken !== 'string' || body.nextPageToken === '' || body.nextPageToken === pageToken) break;
    pageToken = body.nextPageToken;
  }
  return entries;
}
