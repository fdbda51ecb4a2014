// The verbs and read models of kernel/credentials/ that other folders use; nothing else here is importable from outside (test/architecture.test.ts).
export { createKeyring, keyringFromSettings, sealCredential } from './keyring.ts';
export type { CredentialKeyring, SealedCredential } from './keyring.ts';
