import { toGatewayEntry, type GatewayModel } from '../../../domain/model-catalog/gateway.ts';
import type { CatalogEntry } from '../../../domain/model-catalog/types.ts';
import { arrayField, getVendorJson, vendorUrl, withStringField, type VendorRequest } from '../catalog-http.ts';

/**
 * OpenRouter: `GET {base}/models` with `Authorization: Bearer`; one unpaginated page. The list
 * itself is public, so a wrong key would go unnoticed there: the key is checked first with
 * `GET {base}/key`, which answers 401 for an invalid key.
 */
export async function fetchGatewayCatalog(request: VendorRequest): Promise<CatalogEntry[]> {
  const headers = { authorization: `Bearer ${request.apiKey}` };
  await getVendorJson(request, vendorUrl(request.baseUrl, '/key'), headers);
  const body = await getVendorJson(request, vendorUrl(request.baseUrl, '/models'), headers);
  return withStringField<GatewayModel>(arrayField(request, body, 'data'), 'id').map(toGatewayEntry);
}
