// The verbs and read models of configuration/mcp-toolsets/ that other folders use; nothing else here is importable from outside (test/architecture.test.ts).
export { loadMcpBindings, mcpToolDefinitions } from './bindings.ts';
export { createMcpToolset } from './create.ts';
export { loadMcpFacts } from './facts.ts';
export { listMcpToolsets } from './list.ts';
