// The verbs and read models of runtime/mcp/ that other folders use; nothing else here is importable from outside (test/architecture.test.ts).
export { callMcpTool } from './call-tool.ts';
