// The verbs and read models of access/api-keys/ that other folders use; nothing else here is importable from outside (test/architecture.test.ts).
export { createApiKey } from './create.ts';
export { listApiKeys } from './list.ts';
export { revokeApiKey, revokeKeysIssuedBy } from './revoke.ts';
