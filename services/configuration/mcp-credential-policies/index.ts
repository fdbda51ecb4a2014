// The verbs and read models of configuration/mcp-credential-policies/ that other folders use; nothing else here is importable from outside (test/architecture.test.ts).
export { createMcpCredentialPolicy } from './create.ts';
export { listMcpCredentialPolicyVersions } from './list.ts';
export { findPolicyVersion } from './load.ts';
