// The verbs and read models of configuration/model-catalog/ that other folders use; nothing else here is importable from outside (test/architecture.test.ts).
export { fetchProviderCatalog } from './fetch-catalog.ts';
export type { ModelBaseUrls } from './fetch-catalog.ts';
export { listModelCatalog } from './list.ts';
