// The verbs and read models of configuration/mcp-servers/ that other folders use; nothing else here is importable from outside (test/architecture.test.ts).
export { createMcpServer } from './create.ts';
export { discoverMcpServer } from './discover.ts';
export { listMcpServers } from './list.ts';
export { findMcpServerVersion } from './load.ts';
export { toolSnapshotHash } from './tool-snapshot-hash.ts';
