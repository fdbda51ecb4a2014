import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { withMcpSession, type McpAccess, type McpFailure } from './connect.ts';

export type { CallToolResult };

/** Calls one tool of an MCP server (`tools/call`) in one session; the result is the server's, unjudged. */
export async function callRemoteMcpTool(access: McpAccess, call: { name: string; arguments: Record<string, unknown> }): Promise<{ ok: true; value: CallToolResult } | { ok: false; failure: McpFailure }> {
  return withMcpSession(access, (client, options) => client.callTool({ name: call.name, arguments: call.arguments }, undefined, options) as Promise<CallToolResult>);
}
