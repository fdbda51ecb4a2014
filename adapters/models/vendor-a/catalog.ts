import { toVendorAEntry, type VendorAModel } from '../../../domain/model-catalog/vendor-a.ts';
import type { CatalogEntry } from '../../../domain/model-catalog/types.ts';
import { arrayField, getVendorJson, vendorUrl, withStringField, type VendorRequest } from '../catalog-http.ts';

/** OpenAI: `GET {base}/models` with `Authorization: Bearer`; one unpaginated page. */
export async function fetchVendorACatalog(request: VendorRequest): Promise<CatalogEntry[]> {
  const body = await getVendorJson(request, vendorUrl(request.baseUrl, '/models'), { authorization: `Bearer ${request.apiKey}` });
  return withStringField<VendorAModel>(arrayField(request, body, 'data'), 'id').map(toVendorAEntry);
}
