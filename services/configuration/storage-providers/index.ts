// The verbs and read models of configuration/storage-providers/ that other folders use; nothing else here is importable from outside (test/architecture.test.ts).
export { createStorageProvider } from './create.ts';
export { sealStorageCredential } from './credential.ts';
export { listStoredObjects } from './list-objects.ts';
export { listStorageProviders } from './list.ts';
export { findDefaultStorageProvider, loadStorageProvider } from './load.ts';
export type { StorageProviderRow } from './public.ts';
export { s3ClientFor } from './s3-client.ts';
export type { StorageEndpointPolicy } from './s3-client.ts';
export { storageFailure } from './storage-failure.ts';
export { rotateStorageProviderCredential, setDefaultStorageProvider } from './update.ts';
