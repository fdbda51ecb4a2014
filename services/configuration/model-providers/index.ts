// The verbs and read models of configuration/model-providers/ that other folders use; nothing else here is importable from outside (test/architecture.test.ts).
export { providerApiKey } from './api-key.ts';
export { createModelProvider } from './create.ts';
export { listModelProviders } from './list.ts';
export { loadLiveProvider } from './load.ts';
export { providerCredentialAad } from './public.ts';
export type { ModelProviderRow } from './public.ts';
export { removeModelProvider } from './remove.ts';
export { rotateModelProviderCredential } from './rotate-credential.ts';
