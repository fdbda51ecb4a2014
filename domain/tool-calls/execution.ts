import type { McpExecutionRecord } from '../mcp/execution.ts';
import type { HarnessOperationExecutionRecord } from '../runs/harness-operations.ts';

/** A platform tool call's `execution` in the debug record: how an MCP call or a Harness Operation ran. */
export type ToolExecutionRecord = McpExecutionRecord | HarnessOperationExecutionRecord;
