// The verbs and read models of configuration/mcp-credentials/ that other folders use; nothing else here is importable from outside (test/architecture.test.ts).
export { createMcpCredential } from './create.ts';
export { credentialHeaderOf } from './header.ts';
export { listMcpCredentials } from './list.ts';
export { findMcpCredential } from './load.ts';
export { mcpCredentialAad } from './public.ts';
export type { McpCredentialRow } from './public.ts';
export { revokeMcpCredential } from './revoke.ts';
export { rotateMcpCredential } from './rotate.ts';
