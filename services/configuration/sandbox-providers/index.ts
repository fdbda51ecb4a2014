// The verbs and read models of configuration/sandbox-providers/ that other folders use; nothing else here is importable from outside (test/architecture.test.ts).
export { createSandboxProvider } from './create.ts';
export { defaultSandboxConnectionKey } from './default-connection.ts';
export { loadSandboxProviderFacts } from './facts.ts';
export { listSandboxProviders, listSandboxSnapshots } from './list.ts';
export { sandboxCredentialAad } from './public.ts';
export { loadSnapshotRegistry } from './snapshots.ts';
export { rotateSandboxProviderCredential, updateSandboxProviderConfiguration } from './update.ts';
